import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

// openssl gets what it needs to start and nothing else: not the HEDGE_API_KEY (or any other secret) of the shell
// that started the sandbox.
const OPENSSL_VARIABLES = ['PATH', 'SystemRoot', 'SYSTEMROOT', 'TMPDIR', 'TEMP', 'TMP', 'LANG'];
const VALIDITY_DAYS = '30';
const EC_KEY = '-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes';

// sandbox.hedge.test: a name that is not loopback to a client, so that a client can be shown reaching the sandbox
// through a forward proxy that maps the name here (a client never sends a loopback request through a proxy).
const OPENSSL_CONFIG = `[req]
distinguished_name = dn
prompt = no
[dn]
CN = hedge sandbox
[ca_ext]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[leaf_ext]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost,DNS:sandbox.hedge.test,IP:127.0.0.1,IP:::1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
`;

/** Generates a CA and a leaf for localhost, 127.0.0.1 and ::1 into a new temporary directory. */
export async function generateCertificates() {
  const target = await mkdtemp(join(tmpdir(), 'hedge-sandbox-tls-'));
  const path = (name: string) => join(target, name);
  const cleanup = () => rm(target, { recursive: true, force: true });
  /** openssl with `words` split on spaces, each `@name` a file in the directory, then `subject` (it has spaces). */
  const openssl = (words: string, subject: string[] = []) =>
    promisify(execFile)(
      'openssl',
      [...words.split(' ').map((word) => (word.startsWith('@') ? path(word.slice(1)) : word)), ...subject],
      {
        // A variable this shell does not set goes as none (child_process leaves out undefined values).
        env: Object.fromEntries(OPENSSL_VARIABLES.map((name) => [name, process.env[name]])),
      },
    );
  try {
    await writeFile(path('openssl.cnf'), OPENSSL_CONFIG);
    const request = `req -new ${EC_KEY} -config @openssl.cnf`;
    await openssl(`${request} -x509 -extensions ca_ext -days ${VALIDITY_DAYS} -keyout @ca-key.pem -out @ca.pem`, [
      '-subj',
      '/CN=hedge sandbox local CA',
    ]);
    await openssl(`${request} -subj /CN=localhost -keyout @server-key.pem -out @server.csr`);
    await openssl(
      `x509 -req -in @server.csr -CA @ca.pem -CAkey @ca-key.pem -set_serial 0x${randomBytes(16).toString('hex')} -days ${VALIDITY_DAYS} -extfile @openssl.cnf -extensions leaf_ext -out @server.pem`,
    );
    const [key, cert] = await Promise.all([
      readFile(path('server-key.pem'), 'utf8'),
      readFile(path('server.pem'), 'utf8'),
    ]);
    return { caFile: path('ca.pem'), key, cert, cleanup };
  } catch (error) {
    await cleanup();
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`could not generate sandbox TLS certificates with openssl: ${detail}`, { cause: error });
  }
}
