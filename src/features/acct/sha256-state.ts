// SHA-256 (FIPS 180-4) whose state is kept as text and resumed: Node's hash cannot be saved, and the head names the
// digest of the whole records file, which an append extends from the state kept beside it instead of reading the file.

const K = Uint32Array.from(
  '428a2f98 71374491 b5c0fbcf e9b5dba5 3956c25b 59f111f1 923f82a4 ab1c5ed5 d807aa98 12835b01 243185be 550c7dc3 72be5d74 80deb1fe 9bdc06a7 c19bf174 e49b69c1 efbe4786 0fc19dc6 240ca1cc 2de92c6f 4a7484aa 5cb0a9dc 76f988da 983e5152 a831c66d b00327c8 bf597fc7 c6e00bf3 d5a79147 06ca6351 14292967 27b70a85 2e1b2138 4d2c6dfc 53380d13 650a7354 766a0abb 81c2c92e 92722c85 a2bfe8a1 a81a664b c24b8b70 c76c51a3 d192e819 d6990624 f40e3585 106aa070 19a4c116 1e376c08 2748774c 34b0bcb5 391c0cb3 4ed8aa4a 5b9cca4f 682e6ff3 748f82ee 78a5636f 84c87814 8cc70208 90befffa a4506ceb bef9a3f7 c67178f2'
    .split(' ')
    .map((word) => parseInt(word, 16)),
);
const INITIAL = '6a09e667bb67ae853c6ef372a54ff53a510e527f9b05688c1f83d9ab5be0cd19';
const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));

/** One 64-byte block of `data` at `at` into the hash words `h`. */
function compress(h: Uint32Array, data: Uint8Array, at: number, w: Uint32Array) {
  for (let i = 0; i < 16; i++)
    w[i] = (data[at + 4 * i] << 24) | (data[at + 4 * i + 1] << 16) | (data[at + 4 * i + 2] << 8) | data[at + 4 * i + 3];
  for (let i = 16; i < 64; i++) {
    const x = w[i - 15];
    const y = w[i - 2];
    w[i] = (rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3)) + w[i - 7] + (rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10)) + w[i - 16];
  }
  let a = h[0],
    b = h[1],
    c = h[2],
    d = h[3],
    e = h[4],
    f = h[5],
    g = h[6],
    k = h[7];
  for (let i = 0; i < 64; i++) {
    const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
    const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    k = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += k;
}

/** A state as text: the eight words, the bytes hashed so far and those of an unfinished block (hex). */
const STATE = /^([0-9a-f]{64}):(\d{1,15}):((?:[0-9a-f]{2}){0,63})$/;

/** Whether `text` is a state `extend` wrote. */
export const isSha256State = (text: string) => STATE.test(text);

/** The state after `data` is hashed on from `state` (none: the start). */
export function extendSha256(state: string | undefined, data: Uint8Array) {
  const [, words, length, pending] = STATE.exec(state ?? `${INITIAL}:0:`)!;
  const h = Uint32Array.from(words.match(/.{8}/g)!, (word) => parseInt(word, 16));
  const bytes = Buffer.concat([Buffer.from(pending, 'hex'), data]);
  const w = new Uint32Array(64);
  const whole = bytes.length - (bytes.length % 64);
  for (let at = 0; at < whole; at += 64) compress(h, bytes, at, w);
  const hex = [...h].map((word) => word.toString(16).padStart(8, '0')).join('');
  return `${hex}:${Number(length) + data.length}:${bytes.subarray(whole).toString('hex')}`;
}

/** The SHA-256 digest (hex) of everything hashed into `state`. */
export function sha256Of(state: string | undefined) {
  const length = Number(STATE.exec(state ?? `${INITIAL}:0:`)![2]);
  // The padding: a 1 bit, zeros to 56 bytes mod 64, then the length in bits.
  const padding = Buffer.alloc(((55 - length) & 63) + 9);
  padding[0] = 0x80;
  padding.writeBigUInt64BE(BigInt(length) * 8n, padding.length - 8);
  return STATE.exec(extendSha256(state, padding))![1];
}
