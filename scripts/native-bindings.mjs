// The OS keyring's native binding (@napi-rs/keyring) is a compiled `.node` file, which no bundler
// can fold into JavaScript. The build copies the binding npm installed for this platform into
// dist/ beside the code, and src/platform/config/os-keyring.ts opens it with process.dlopen when a command
// first needs the keyring: dist/ still loads no package at run time. A tarball built on one
// platform carries that platform's binding only; elsewhere hedge says so and keeps the key in the
// 0600 file (docs/configuration.md, "Where the key lives").
import { copyFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Copies every installed `@napi-rs/keyring-<platform>` binding into `out`; returns their file names. */
export function copyNativeBindings(root, out) {
  const scope = join(root, 'node_modules', '@napi-rs');
  if (!existsSync(scope)) return [];
  const copied = [];
  for (const name of readdirSync(scope)) {
    if (!name.startsWith('keyring-')) continue;
    for (const file of readdirSync(join(scope, name))) {
      if (!/^keyring\.[\w-]+\.node$/.test(file)) continue;
      copyFileSync(join(scope, name, file), join(out, file));
      copied.push(file);
    }
  }
  return copied;
}
