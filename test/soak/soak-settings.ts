/** A soak's setting, which its runner (scripts/soak-*.mjs) always sets: the soaks run only through it. */
export function soakSetting(name: string) {
  const value = process.env[name];
  if (value === undefined)
    throw new Error(`${name} is not set: run the soaks with npm run soak or npm run soak:keeper.`);
  return value;
}
