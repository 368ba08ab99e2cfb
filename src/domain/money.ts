// Amounts as a desk reads them in sentences and tables: separators and two decimals.

// Made on first use, not at import: the first Intl formatter of a process costs ~10 ms (ICU data),
// and --json output never formats money (bench/results.md).
let moneyFormatter: Intl.NumberFormat | undefined;
function moneyFormat(): Intl.NumberFormat {
  moneyFormatter ??= new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return moneyFormatter;
}

export function formatMoney(value: number): string {
  return moneyFormat().format(value);
}

/** "12,345.00 USD" */
export function formatUsd(value: number): string {
  return `${formatMoney(value)} USD`;
}

