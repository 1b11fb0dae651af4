import { generateKeyPairSync, randomBytes, sign } from "node:crypto";

/**
 * A self-signed certificate for test servers, made with node:crypto alone (it signs; the few DER structures of an
 * X.509 v3 certificate are written here): an EC P-256 key, the given DNS names as subjectAltName, valid from an
 * hour ago for a day. Clients trust it by passing `cert` as their CA.
 */
export interface TestCertificate {
  cert: string;
  key: string;
}

function der(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  let length: Buffer;
  if (body.length < 0x80) length = Buffer.from([body.length]);
  else {
    const bytes: number[] = [];
    for (let n = body.length; n > 0; n >>= 8) bytes.unshift(n & 0xff);
    length = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), length, body]);
}

const sequence = (...parts: Buffer[]) => der(0x30, ...parts);

function oid(dotted: string): Buffer {
  const [first, second, ...rest] = dotted.split(".").map(Number);
  const bytes = [first! * 40 + second!];
  for (const arc of rest) {
    const base128 = [arc & 0x7f];
    for (let n = arc >> 7; n > 0; n >>= 7) base128.unshift((n & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return der(0x06, Buffer.from(bytes));
}

/** UTCTime, YYMMDDHHMMSSZ (good until 2049). */
const utcTime = (date: Date) =>
  der(0x17, Buffer.from(`${date.toISOString().slice(2, 19).replace(/[-T:]/g, "")}Z`, "ascii"));

const commonName = (name: string) =>
  sequence(der(0x31, sequence(oid("2.5.4.3"), der(0x0c, Buffer.from(name, "utf8")))));

const ECDSA_WITH_SHA256 = sequence(oid("1.2.840.10045.4.3.2"));

export function selfSignedCertificate(dnsNames: string[]): TestCertificate {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const serial = randomBytes(8);
  serial[0] = serial[0]! & 0x7f; // a positive INTEGER
  const now = Date.now();
  const subjectAltName = sequence(...dnsNames.map((name) => der(0x82, Buffer.from(name, "ascii"))));
  const tbs = sequence(
    der(0xa0, der(0x02, Buffer.from([2]))), // v3
    der(0x02, serial),
    ECDSA_WITH_SHA256,
    commonName(dnsNames[0]!),
    sequence(utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + 86_400_000))),
    commonName(dnsNames[0]!),
    publicKey.export({ type: "spki", format: "der" }),
    der(0xa3, sequence(sequence(oid("2.5.29.17"), der(0x04, subjectAltName)))),
  );
  const signature = sign("sha256", tbs, privateKey);
  const certificate = sequence(tbs, ECDSA_WITH_SHA256, der(0x03, Buffer.from([0]), signature));
  const lines = certificate.toString("base64").match(/.{1,64}/g) ?? [];
  return {
    cert: `-----BEGIN CERTIFICATE-----\n${lines.join("\n")}\n-----END CERTIFICATE-----\n`,
    key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}
