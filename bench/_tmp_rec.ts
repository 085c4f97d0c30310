import { createRequire } from 'node:module';
import { generateKeyPairSync, sign, verify, createHash } from 'node:crypto';
const req = createRequire(import.meta.url);
const s = req('secp256k1/bindings.js');
const priv = new Uint8Array(32).fill(7);
const msgs: Uint8Array[] = []; const sigs: {signature: Uint8Array, recid: number}[] = [];
for (let i = 0; i < 2000; i++) { const m = createHash('sha256').update(String(i)).digest(); msgs.push(m); sigs.push(s.ecdsaSign(m, priv)); }
const pub = s.publicKeyCreate(priv, false);
for (let round = 0; round < 3; round++) {
  let t = process.hrtime.bigint();
  for (let i = 0; i < 2000; i++) s.ecdsaRecover(sigs[i]!.signature, sigs[i]!.recid, msgs[i]!, false);
  console.log('recover', Number(process.hrtime.bigint() - t) / 2000 / 1000, 'us');
  t = process.hrtime.bigint();
  for (let i = 0; i < 2000; i++) s.ecdsaVerify(sigs[i]!.signature, msgs[i]!, pub);
  console.log('verify', Number(process.hrtime.bigint() - t) / 2000 / 1000, 'us');
}
const kp = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
const d = Buffer.from('hello');
const sg = sign('sha256', d, kp.privateKey);
let t = process.hrtime.bigint();
for (let i = 0; i < 2000; i++) verify('sha256', d, kp.publicKey, sg);
console.log('openssl verify', Number(process.hrtime.bigint() - t) / 2000 / 1000, 'us');
