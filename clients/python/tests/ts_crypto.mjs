// Test helper: the TypeScript encryption module (@federa/common, built into packages/common/dist) as a filter.
// Reads one JSON request on stdin and writes one JSON answer on stdout:
//   {"op": "encrypt", "private_key_pem": <any RSA key PEM>, "public_key_b64": <recipient>, "plaintext_b64": ...}
//     -> {"data": <"$"-joined ciphertext>}
//   {"op": "decrypt", "private_key_pem": <recipient key PEM>, "data": ...} -> {"plaintext_b64": ...}
//   {"op": "public_key", "private_key_pem": ...} -> {"public_key_b64": ...}
//   {"op": "seal_log", "private_key_pem": ..., "public_key_b64": <recipient>, "pieces": [text, ...], "note": text}
//     -> {"log": <a sealed run log: the header, one sealed line per piece, then the server's note line>}
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, resolve } from 'node:path';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const common = await import(pathToFileURL(resolve(repo, 'packages/common/dist/index.js')).href);
const request = JSON.parse(readFileSync(0, 'utf8'));
const cryptor = new common.RsaCryptor(request.private_key_pem);
let answer;
if (request.op === 'encrypt') {
  answer = { data: cryptor.encryptBytesToString(Buffer.from(request.plaintext_b64, 'base64'), request.public_key_b64) };
} else if (request.op === 'decrypt') {
  answer = { plaintext_b64: cryptor.decryptStringToBytes(request.data).toString('base64') };
} else if (request.op === 'seal_log') {
  const sealed = request.pieces.map((p) => common.sealLogPiece(cryptor, p, request.public_key_b64)).join('');
  answer = { log: common.SEALED_LOG_HEADER + sealed + request.note };
} else if (request.op === 'public_key') {
  answer = { public_key_b64: cryptor.publicKeyBase64 };
} else {
  throw new Error(`unknown op ${request.op}`);
}
process.stdout.write(JSON.stringify(answer));
