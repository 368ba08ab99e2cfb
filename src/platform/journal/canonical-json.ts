// The simulator's too, so kept below both.
export { canonicalJson } from '../../core/files/canonical-json.js';
