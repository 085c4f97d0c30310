// EIP-712 typed structured data hashing for the field types Oddex signs: string, address, bool,
// uint8..uint256, bytes32, dynamic arrays of those, and nested structs. Malformed values throw
// (callers pass schema-validated input). keccak dominates the cost, so type hashes are computed once, and
// the hashes of short strings (market hashes, token addresses, the N/A literals) and of salt-less domains are memoised.
import { keccak256 } from './keccak.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { writeFixedHex, writeUint } from './hex.js';
import { boundedMemo } from './memo.js';

export interface TypedField {
  readonly name: string;
  readonly type: string;
}
export type TypeDefinitions = Readonly<Record<string, readonly TypedField[]>>;

/** EIP-712 domain; only the fields present are part of its type. */
export interface TypedDataDomain {
  name?: string;
  version?: string;
  chainId?: number | bigint;
  verifyingContract?: string;
  salt?: string;
}

/** `Primary(type name,...)` followed by the referenced struct types in name order. */
export function encodeType(types: TypeDefinitions, primaryType: string): string {
  const referenced = new Set<string>();
  const visit = (name: string) => {
    for (const field of structFields(types, name)) {
      const base = field.type.endsWith('[]') ? field.type.slice(0, -2) : field.type;
      if (types[base] && base !== primaryType && !referenced.has(base)) {
        referenced.add(base);
        visit(base);
      }
    }
  };
  visit(primaryType);
  return [primaryType, ...[...referenced].sort()]
    .map((name) => `${name}(${structFields(types, name).map((f) => `${f.type} ${f.name}`).join(',')})`)
    .join('');
}

function structFields(types: TypeDefinitions, name: string): readonly TypedField[] {
  const fields = types[name];
  if (!fields) throw new TypeError(`EIP-712 type ${name} is not defined`);
  return fields;
}

const typeHashes = new WeakMap<TypeDefinitions, Map<string, Uint8Array>>();

function typeHash(types: TypeDefinitions, name: string): Uint8Array {
  let perTypes = typeHashes.get(types);
  if (!perTypes) typeHashes.set(types, (perTypes = new Map()));
  let hash = perTypes.get(name);
  if (!hash) perTypes.set(name, (hash = keccak256(utf8ToBytes(encodeType(types, name)))));
  return hash;
}

const keccakUtf8 = (s: string): Uint8Array => keccak256(utf8ToBytes(s));
const memoKeccakUtf8 = boundedMemo(keccakUtf8, 4096);
/** Strings up to this length are memoised, which bounds the memo's memory. */
const MEMO_STRING_LENGTH = 128;
const hashString = (s: string): Uint8Array => (s.length <= MEMO_STRING_LENGTH ? memoKeccakUtf8(s) : keccakUtf8(s));

/** hashStruct(s) = keccak256(typeHash || encodeData(s)). */
export function hashStruct(types: TypeDefinitions, name: string, value: unknown): Uint8Array {
  if (typeof value !== 'object' || value === null) throw new TypeError(`${name} must be an object`);
  const fields = structFields(types, name);
  const record = value as Record<string, unknown>;
  const out = new Uint8Array(32 * (fields.length + 1));
  out.set(typeHash(types, name), 0);
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]!;
    encodeValue(types, field.type, record[field.name], out, 32 * (i + 1), `${name}.${field.name}`);
  }
  return keccak256(out);
}

/** Writes the 32-byte encoding of one value into `out` (which is zero-filled) at `offset`. */
function encodeValue(types: TypeDefinitions, type: string, value: unknown, out: Uint8Array, offset: number, what: string): void {
  if (type.endsWith('[]')) {
    if (!Array.isArray(value)) throw new TypeError(`${what} must be an array`);
    const elementType = type.slice(0, -2);
    const items = new Uint8Array(32 * value.length);
    value.forEach((item, i) => encodeValue(types, elementType, item, items, 32 * i, `${what}[${i}]`));
    out.set(keccak256(items), offset);
    return;
  }
  if (types[type]) {
    out.set(hashStruct(types, type, value), offset);
    return;
  }
  switch (type) {
    case 'string':
      if (typeof value !== 'string') throw new TypeError(`${what} must be a string`);
      out.set(hashString(value), offset);
      return;
    case 'address':
      writeFixedHex(out, offset + 12, value as string, 20, what);
      return;
    case 'bytes32':
      writeFixedHex(out, offset, value as string, 32, what);
      return;
    case 'bool':
      if (typeof value !== 'boolean') throw new TypeError(`${what} must be a boolean`);
      out[offset + 31] = value ? 1 : 0;
      return;
  }
  const bits = uintBits(type);
  if (bits === undefined) throw new TypeError(`EIP-712 type ${type} is not supported`);
  if (typeof value !== 'bigint' && typeof value !== 'number') throw new TypeError(`${what} must be a bigint or an integer`);
  writeUint(out, offset, value, what, bits);
}

/** N of `uintN` (8..256, a multiple of 8), or undefined for other types. */
function uintBits(type: string): number | undefined {
  const match = /^uint(\d{1,3})$/.exec(type);
  const bits = match ? Number(match[1]) : NaN;
  return bits >= 8 && bits <= 256 && bits % 8 === 0 ? bits : undefined;
}

/** The EIP712Domain fields in their canonical order. */
const DOMAIN_FIELDS: readonly TypedField[] = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
  { name: 'salt', type: 'bytes32' },
];

/** One definitions object per combination of present domain fields, so their type hashes stay cached. */
const domainTypesByPresence = new Map<number, TypeDefinitions>();

export function domainTypes(domain: TypedDataDomain): TypeDefinitions {
  const record = domain as Record<string, unknown>;
  let presence = 0;
  DOMAIN_FIELDS.forEach((f, i) => {
    if (record[f.name] !== undefined) presence |= 1 << i;
  });
  let types = domainTypesByPresence.get(presence);
  if (!types) {
    types = { EIP712Domain: DOMAIN_FIELDS.filter((_, i) => presence & (1 << i)) };
    domainTypesByPresence.set(presence, types);
  }
  return types;
}

export const hashDomain = (domain: TypedDataDomain): Uint8Array => hashStruct(domainTypes(domain), 'EIP712Domain', domain);

/** A fill domain repeats on every request; a cancel domain carries a one-time salt, so only salt-less ones are memoised. */
const memoHashDomain = boundedMemo(hashDomain, 64, (d: TypedDataDomain) =>
  // JSON keeps an absent field (null) apart from any string value, and one field's text from the next.
  JSON.stringify([d.name ?? null, d.version ?? null, d.chainId === undefined ? null : String(d.chainId), d.verifyingContract ?? null]),
);
const domainSeparator = (domain: TypedDataDomain): Uint8Array =>
  domain.salt === undefined ? memoHashDomain(domain) : hashDomain(domain);

/** The EIP-712 digest: keccak256(0x19 0x01 || domainSeparator || hashStruct(message)). */
export function hashTypedData(domain: TypedDataDomain, types: TypeDefinitions, primaryType: string, message: unknown): Uint8Array {
  const out = new Uint8Array(66);
  out[0] = 0x19;
  out[1] = 0x01;
  out.set(domainSeparator(domain), 2);
  out.set(hashStruct(types, primaryType, message), 34);
  return keccak256(out);
}
