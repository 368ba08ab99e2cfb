// What a keeper's --alert-cmd child inherits: never the keeper's secrets, and a proxy's address
// without its credentials (HTTP(S)_PROXY may carry user:password).
import { describe, expect, it } from 'vitest';
import { childEnvironment as hookEnvironment } from '../../src/core/security/child-env.js';

describe('hookEnvironment', () => {
  it('drops the key, the team store and its password; keeps proxies without their credentials', () => {
    const kept = hookEnvironment({
      PATH: '/usr/bin',
      HEDGE_API_KEY: 'hpk_test_x',
      HEDGE_JOURNAL_URL: 'postgres://u:p@db/hedge',
      PGPASSWORD: 'p',
      HTTPS_PROXY: 'http://desk:s3cret@proxy.example:3128',
      http_proxy: 'http://desk:s3cret@proxy.example:3128/',
      ALL_PROXY: 'socks5://desk:s3cret@proxy.example:1080',
      HTTP_PROXY: 'http://proxy.example:3128',
      https_proxy: 'not a url desk:s3cret',
      NO_PROXY: 'localhost',
    });
    expect(kept).toEqual({
      PATH: '/usr/bin',
      HTTPS_PROXY: 'http://proxy.example:3128/',
      http_proxy: 'http://proxy.example:3128/',
      ALL_PROXY: 'socks5://proxy.example:1080',
      HTTP_PROXY: 'http://proxy.example:3128',
      https_proxy: '',
      NO_PROXY: 'localhost',
    });
    expect(JSON.stringify(kept)).not.toContain('s3cret');
  });
});
