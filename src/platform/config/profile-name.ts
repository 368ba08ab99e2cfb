// Kept apart from the zod store schema so that resolving credentials does not load zod.
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
