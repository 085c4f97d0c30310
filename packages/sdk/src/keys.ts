// A new random private key (Web Crypto randomness through noble; browsers and Node), e.g. for a development wallet.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToHex } from '@noble/hashes/utils.js';

export const generatePrivateKey = (): `0x${string}` => `0x${bytesToHex(secp256k1.utils.randomSecretKey())}`;
