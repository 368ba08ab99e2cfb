import * as z from 'zod';
import { PROFILE_NAME } from './profile-name.js';


export const profileSchema = z.looseObject({
  base_url: z.string(),
  /** The key in plain text: the fallback where there is no OS keyring and no helper (config/key-store.ts). */
  api_key: z.string().optional(),
  /** The key is in the OS keyring, service "hedge", under this account. */
  key_keyring: z.string().optional(),
  /** A credential helper: a shell command whose output's first line is the key. */
  key_command: z.string().optional(),
  /** For lists without reading the key: its redacted form and environment, as they were at login. */
  key_shown: z.string().optional(),
  key_environment: z.string().optional(),
  ca_file: z.string().optional(),
  /** Answers to the spec's "not shown" request names for this server (api/wire/unspecified.ts). */
  wire: z.record(z.string(), z.string()).optional(),
  /** The same answers, learned from the server itself (config/learned-wire.ts); `wire` wins over them. */
  wire_learned: z.record(z.string(), z.string()).optional(),
  saved_at: z.string().optional(),
  /** The team journal store (postgres://…), shared by every machine of the desk. */
  journal_url: z.string().optional(),
});

export const storeSchema = z.looseObject({
  current: z.string().optional(),
  profiles: z.record(z.string().regex(PROFILE_NAME), profileSchema).default({}),
  /** Wire names learned per server for credentials not taken whole from a profile: base URL (or `demo`) → names. */
  learned_wire: z.record(z.string(), z.record(z.string(), z.string())).optional(),
});

export type StoredProfile = z.infer<typeof profileSchema>;
export type StoreData = z.infer<typeof storeSchema>;
