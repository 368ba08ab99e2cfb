import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { PROFILE_NAME } from './profile-name.js';

z.config(en());

const optionalText = z.optional(z.string());
/** Wire settings: a setting's key → the name this server takes for it. */
const wireNames = z.record(z.string(), z.string());

const profileSchema = z.looseObject({
  base_url: z.string(),
  /** The key in plain text: the fallback where there is no OS keyring and no helper (config/credentials.ts, keepKey). */
  api_key: optionalText,
  /** The key is in the OS keyring, service "hedge", under this account. */
  key_keyring: optionalText,
  /** A credential helper: a shell command whose output's first line is the key. */
  key_command: optionalText,
  /** For lists without reading the key: its redacted form and environment, as they were at login. */
  key_shown: optionalText,
  key_environment: optionalText,
  ca_file: optionalText,
  /** Answers to the spec's "not shown" request names for this server (api/wire/unspecified.ts). */
  wire: z.optional(wireNames),
  /** The same answers, learned from the server itself (runtime/wire-memory.ts); `wire` wins over them. */
  wire_learned: z.optional(wireNames),
  saved_at: optionalText,
  /** The team journal store (postgres://…), shared by every machine of the desk. */
  journal_url: optionalText,
});

export const storeSchema = z.looseObject({
  current: optionalText,
  profiles: z._default(z.record(z.string().check(z.regex(PROFILE_NAME)), profileSchema), {}),
  /** Wire names learned per server for credentials not taken whole from a profile: base URL (or `demo`) → names. */
  learned_wire: z.optional(z.record(z.string(), wireNames)),
});

export type StoredProfile = z.infer<typeof profileSchema>;
export type StoreData = z.infer<typeof storeSchema>;
