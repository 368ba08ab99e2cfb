// Reading requests and writing responses for the sandbox server, including the deliberately broken ones fault
// injection needs (a stalled body, an HTML gateway page, scrambled types, ambiguous envelopes, an oversized body).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';

import { ApiError, type EngineResponse } from './envelope.js';
import type { MalformedKind } from './faults.js';
import { INVALID_JSON } from './validation.js';

const MAX_BODY_BYTES = 1024 * 1024;
const JSON_TYPE = 'application/json; charset=utf-8';
const BAD_GATEWAY_PAGE =
  '<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>';

export function splitUrl(url: string) {
  const questionMark = url.indexOf('?');
  if (questionMark < 0) return { rawPath: url, query: {} };
  const query: Record<string, string> = {};
  // The first of a repeated parameter counts.
  for (const [name, value] of new URLSearchParams(url.slice(questionMark + 1))) query[name] ??= value;
  return { rawPath: url.slice(0, questionMark), query };
}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        reject(new ApiError(413, 'payload_too_large', `request body over ${MAX_BODY_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function parseBody(text: string) {
  if (!text.length) return;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return INVALID_JSON;
  }
}

/** Status and headers for a body of `bytes` bytes. */
function writeHead(
  res: ServerResponse,
  status: number,
  headers: Record<string, string> = {},
  bytes: number,
  type = JSON_TYPE,
) {
  res.writeHead(status, { ...headers, 'content-type': type, 'content-length': bytes });
}

function sendText(res: ServerResponse, status: number, text: string, headers?: Record<string, string>, type?: string) {
  writeHead(res, status, headers, Buffer.byteLength(text), type);
  res.end(text);
}

export function sendEnvelope(res: ServerResponse, { status, body, headers }: EngineResponse) {
  sendText(res, status, JSON.stringify(body), headers);
}

/** Status and headers go out, then half the body, then nothing: the client waits forever. */
export function stallBody(res: ServerResponse, { status, body, headers }: EngineResponse) {
  const text = JSON.stringify(body);
  writeHead(res, status, headers, Buffer.byteLength(text));
  res.write(text.slice(0, Math.floor(text.length / 2)));
}

/** Numbers become strings and strings become numbers: well-formed JSON, wrong types everywhere. */
function swapTypes(value: unknown): unknown {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.map(swapTypes);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, swapTypes(inner)]));
  return value;
}

const AMBIGUOUS_ERROR = {
  code: 'internal_error',
  message: 'an error was reported after the request was processed (injected)',
};

/**
 * A broken answer in place of the engine's (none: a proxy's HTML page); the status sent. The ambiguous kinds
 * contradict the engine's real envelope, so that it no longer says clearly whether it worked.
 */
export function sendMalformed(res: ServerResponse, kind: MalformedKind, response?: EngineResponse) {
  if (!response) {
    sendText(res, 502, BAD_GATEWAY_PAGE, {}, 'text/html');
    return 502;
  }
  const { status, headers, body } = response;
  const { data, error, meta } = body;
  const text = JSON.stringify(body);
  const envelope = (data: unknown, error: unknown) => JSON.stringify({ data, error, meta });
  const contradicted = error ?? AMBIGUOUS_ERROR;
  const [sent, answer, answerHeaders]: [number, string, Record<string, string>?] =
    kind === 'truncated'
      ? [200, text.slice(0, Math.max(1, Math.floor(text.length / 2)))]
      : kind === 'wrong-types'
        ? [status, JSON.stringify({ data: swapTypes(data), error: swapTypes(error), meta: [] })]
        : kind === 'deep'
          ? [status, `{"data":${'['.repeat(100_000)}${']'.repeat(100_000)},"error":null,"meta":{}}`]
          : kind === 'error-in-200'
            ? [200, envelope(null, contradicted), headers]
            : kind === 'data-and-error'
              ? [status, envelope(data, contradicted), headers]
              : [400, envelope(data, null), headers];
  sendText(res, sent, answer, answerHeaders);
  return sent;
}

const PADDING_CHUNK = Buffer.alloc(64 * 1024, 'x');

/** A valid envelope of exactly `bytes` bytes, `meta.padding` filled with "x", streamed as the client takes it. */
export function sendPadded(res: ServerResponse, response: EngineResponse, bytes: number) {
  const { data, error, meta } = response.body;
  // `padding` is the last key of the last object, so the text ends `"padding":""}}`.
  const text = JSON.stringify({ data, error, meta: { ...meta, padding: '' } });
  const textBytes = Buffer.byteLength(text);
  let left = Math.max(0, bytes - textBytes);
  writeHead(res, response.status, response.headers, textBytes + left);
  function* chunks() {
    yield text.slice(0, -3);
    for (; left > 0; left -= PADDING_CHUNK.length) yield PADDING_CHUNK.subarray(0, left);
    yield text.slice(-3);
  }
  Readable.from(chunks()).pipe(res);
}
