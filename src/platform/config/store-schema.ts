import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { PROFILE_NAME } from './profile-name.js';

z.config(en());

const profileSchema = z.looseObject({
  base_url: z.string(),
  /** The key in plain text: the fallback where there is no OS keyring and no helper (config/key-store.ts). */
  api_key: z.optional(z.string()),
  /** The key is in the OS keyring, service "hedge", under this account. */
  key_keyring: z.optional(z.string()),
  /** A credential helper: a shell command whose output's first line is the key. */
  key_command: z.optional(z.string()),
  /** For lists without reading the key: its redacted form and environment, as they were at login. */
  key_shown: z.optional(z.string()),
  key_environment: z.optional(z.string()),
  ca_file: z.optional(z.string()),
  /** Answers to the spec's "not shown" request names for this server (api/wire/unspecified.ts). */
  wire: z.optional(z.record(z.string(), z.string())),
  /** The same answers, learned from the server itself (runtime/wire-memory.ts); `wire` wins over them. */
  wire_learned: z.optional(z.record(z.string(), z.string())),
  saved_at: z.optional(z.string()),
  /** The team journal store (postgres://…), shared by every machine of the desk. */
  journal_url: z.optional(z.string()),
});

export const storeSchema = z.looseObject({
  current: z.optional(z.string()),
  profiles: z._default(z.record(z.string().check(z.regex(PROFILE_NAME)), profileSchema), {}),
  /** Wire names learned per server for credentials not taken whole from a profile: base URL (or `demo`) → names. */
  learned_wire: z.optional(z.record(z.string(), z.record(z.string(), z.string()))),
});

export type StoredProfile = z.infer<typeof profileSchema>;
export type StoreData = z.infer<typeof storeSchema>;
