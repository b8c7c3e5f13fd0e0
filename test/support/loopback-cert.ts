// A self-signed certificate for 127.0.0.1 (an IP subject alternative name, which the provider's
// auto-mTLS certificate for "localhost" does not carry), written as key.pem and cert.pem in dir.

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export function writeLoopbackCert(dir: string): { keyFile: string; certFile: string } {
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
    { stdio: 'pipe' },
  );
  return { keyFile, certFile };
}
