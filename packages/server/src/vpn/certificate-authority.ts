import { createPrivateKey, generateKeyPair, randomBytes, sign, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';

/** A certificate and its private key, both PEM. */
export interface IssuedCertificate {
  certificate: string;
  privateKey: string;
  /** Serial number in decimal: the name OpenVPN looks up in its revocation folder (`crl-verify … dir`). */
  serial: string;
  notAfter: Date;
}

/**
 * The VPN's own certificate authority (docs/vpn.md, "Certificates"). Created at the first start in the VPN
 * folder and kept there: `ca.crt`/`ca.key` (10 years), the OpenVPN server's certificate, and a `tls-crypt` key
 * that hides the TLS handshake from anyone without a configuration. Private keys are written with mode 0600.
 *
 * The RSA work (a new key, the CA's signature) runs in Node's thread pool: done on the event loop (a key takes
 * hundreds of milliseconds, node-forge's JavaScript signature as long again) it would stall every other request.
 * node-forge only builds and encodes the certificate.
 */
export class CertificateAuthority {
  readonly caCertificate: string;
  readonly tlsCryptKey: string;
  readonly #caCert: forge.pki.Certificate;
  readonly #caKey: KeyObject;

  private constructor(caPem: string, caKeyPem: string, tlsCryptKey: string) {
    this.caCertificate = caPem;
    this.tlsCryptKey = tlsCryptKey;
    this.#caCert = forge.pki.certificateFromPem(caPem);
    this.#caKey = createPrivateKey(caKeyPem);
  }

  /** Loads the authority of `dir`, creating it (and the server's certificate) when it does not exist yet. */
  static async openOrCreate(
    dir: string,
    name: string,
  ): Promise<{ ca: CertificateAuthority; created: boolean }> {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const caFile = join(dir, 'ca.crt');
    const keyFile = join(dir, 'ca.key');
    const tlsFile = join(dir, 'tls-crypt.key');
    if (existsSync(caFile) && existsSync(keyFile) && existsSync(tlsFile)) {
      const ca = new CertificateAuthority(
        readFileSync(caFile, 'utf8'),
        readFileSync(keyFile, 'utf8'),
        readFileSync(tlsFile, 'utf8'),
      );
      return { ca, created: false };
    }
    const key = await newRsaKey();
    const cert = forge.pki.createCertificate();
    cert.publicKey = forge.pki.publicKeyFromPem(key.publicPem);
    cert.serialNumber = randomSerialHex();
    cert.validity.notBefore = new Date(Date.now() - 60_000);
    cert.validity.notAfter = new Date(Date.now() + 3650 * 86_400_000);
    const subject = [{ name: 'commonName', value: `${name} VPN CA` }];
    cert.setSubject(subject);
    cert.setIssuer(subject);
    cert.setExtensions([
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      { name: 'subjectKeyIdentifier' },
    ]);
    const caPem = await signedPem(cert, createPrivateKey(key.privatePem));
    writeAtomically(keyFile, key.privatePem, 0o600);
    writeAtomically(tlsFile, newTlsCryptKey(), 0o600);
    writeAtomically(caFile, caPem, 0o644);
    const ca = new CertificateAuthority(caPem, key.privatePem, readFileSync(tlsFile, 'utf8'));
    const server = await ca.issue('server', 3650, 'server');
    writeAtomically(join(dir, 'server.key'), server.privateKey, 0o600);
    writeAtomically(join(dir, 'server.crt'), server.certificate, 0o644);
    return { ca, created: true };
  }

  /**
   * Issues a certificate for `commonName` valid for `days`. `role` sets the key usages OpenVPN checks with
   * `remote-cert-tls`: a client certificate cannot act as the server, nor the other way round.
   */
  async issue(commonName: string, days: number, role: 'client' | 'server'): Promise<IssuedCertificate> {
    const key = await newRsaKey();
    const cert = forge.pki.createCertificate();
    cert.publicKey = forge.pki.publicKeyFromPem(key.publicPem);
    const serialHex = randomSerialHex();
    cert.serialNumber = serialHex;
    const lifetimeMs = days * 86_400_000;
    const notAfter = new Date(Date.now() + lifetimeMs);
    // Valid a little before now for clocks that lag (a minute, or a tenth of a short lifetime).
    cert.validity.notBefore = new Date(Date.now() - Math.min(60_000, lifetimeMs / 10));
    cert.validity.notAfter = notAfter;
    cert.setSubject([{ name: 'commonName', value: commonName }]);
    cert.setIssuer(this.#caCert.subject.attributes);
    cert.setExtensions([
      { name: 'basicConstraints', cA: false },
      {
        name: 'keyUsage',
        digitalSignature: true,
        keyEncipherment: role === 'server',
        keyAgreement: role === 'client',
        critical: true,
      },
      { name: 'extKeyUsage', serverAuth: role === 'server', clientAuth: role === 'client' },
      { name: 'subjectKeyIdentifier' },
    ]);
    return {
      certificate: await signedPem(cert, this.#caKey),
      privateKey: key.privatePem,
      serial: BigInt(`0x${serialHex}`).toString(10),
      notAfter,
    };
  }
}

const generateRsaKey = promisify(generateKeyPair);

function signAsync(algorithm: string, data: Buffer, key: KeyObject): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    sign(algorithm, data, key, (error, signature) => (error ? reject(error) : resolve(signature)));
  });
}

async function newRsaKey(): Promise<{ publicPem: string; privatePem: string }> {
  const { publicKey, privateKey } = await generateRsaKey('rsa', { modulusLength: 2048 });
  return {
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privatePem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
  };
}

/**
 * Signs `cert` (sha256WithRSAEncryption) with `key` in the thread pool and answers it as PEM. node-forge's own
 * `sign` fills in the signature algorithm and the to-be-signed part; its signature is then replaced by the native one.
 */
async function signedPem(cert: forge.pki.Certificate, key: KeyObject): Promise<string> {
  const placeholder = { sign: () => '' } as unknown as forge.pki.rsa.PrivateKey;
  cert.sign(placeholder, forge.md.sha256.create());
  const tbs = Buffer.from(forge.asn1.toDer(cert.tbsCertificate).getBytes(), 'binary');
  const signature = await signAsync('sha256', tbs, key);
  cert.signature = signature.toString('binary');
  return forge.pki.certificateToPem(cert);
}

/** A positive 16-byte serial in hex (the top bit cleared so DER keeps it positive without padding). */
function randomSerialHex(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0]! & 0x7f) | 0x10;
  return bytes.toString('hex');
}

/** OpenVPN's static key file format (2048 random bits), used for `tls-crypt`. */
function newTlsCryptKey(): string {
  const hex = randomBytes(256).toString('hex');
  const lines = hex.match(/.{32}/g) ?? [];
  return ['-----BEGIN OpenVPN Static key V1-----', ...lines, '-----END OpenVPN Static key V1-----', ''].join(
    '\n',
  );
}

/** Writes through a temporary file and a rename, so a crash never leaves half a key. */
export function writeAtomically(file: string, content: string, mode: number): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, content, { mode });
  renameSync(temporary, file);
}
