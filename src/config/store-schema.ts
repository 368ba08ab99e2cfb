import * as z from 'zod';
import { PROFILE_NAME } from './profile-name.js';


export const profileSchema = z.looseObject({
  base_url: z.string(),
  api_key: z.string().optional(),
  ca_file: z.string().optional(),
  /** Answers to the spec's "not shown" request names for this server (api/unspecified.ts). */
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
