// Report search by every name a person would type (spec 4.10 rule 6, part 8; issue 19): the name as
// normalised, the name the source CBOM gave, common aliases, the bom-ref, a component's package URL
// and its advisory ids and aliases; case ignored in every script; matches in the report's own
// section order, so the 200-match cap keeps the most important. Real CBOMs from ../shared/fixtures
// (CBOMkit-theia's Temurin image, the Mastercard client's CBOMkit scan) and a CBOM naming algorithms
// the way other tools do.
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OsvRecord } from '../../src/analysis/vulns/osv-types';
import { PQC_SECTIONS } from '../../src/reports/builders';
import { importRecords } from '../../src/vulndb/import';
import log4shell from '../../vulndb/starter/GHSA-jfh8-c2jp-5v3q.json';
import mastercard from '../fixtures/cbom/mastercard-client-encryption-java__cbom.json?raw';
import temurin from '../fixtures/cbom/ibm-cbomkit-theia__temurin-jdk-image.cbom.json?raw';
import { dataTenant } from '../data-plane';
import { api, json } from '../helpers';
import { analysed, getJob, letRendersFinish, P } from '../pipeline';

type T = Awaited<ReturnType<typeof dataTenant>>;

const algorithm = (ref: string, name: string, primitive: string, extra: Record<string, unknown> = {}) => ({
  type: 'cryptographic-asset', 'bom-ref': ref, name, cryptoProperties: { assetType: 'algorithm', algorithmProperties: { primitive, ...extra } },
});

/** Algorithms named as other scanners and libraries name them, and assets named in other scripts. */
const otherTools = JSON.stringify({
  bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, metadata: { component: { type: 'application', name: 'other-tools' } },
  components: [
    algorithm('alg-ec-521', 'EC-secp521r1', 'signature'),
    algorithm('alg-desede', 'desede-168-cbc-pkcs5', 'block-cipher'),
    algorithm('alg-p384', 'ECDH-P-384', 'key-agree'),
    algorithm('alg-sha256', 'SHA-256', 'hash'),
    algorithm('alg-aes-gcm', 'AES-256-GCM', 'ae'),
    { type: 'cryptographic-asset', 'bom-ref': 'cert-strasse', name: 'Wurzelzertifikat Hauptstraße', cryptoProperties: { assetType: 'certificate', certificateProperties: { subjectName: 'CN=Hauptstraße' } } },
    { type: 'cryptographic-asset', 'bom-ref': 'key-cyrillic', name: 'Ключ подписи RSA-2048', cryptoProperties: { assetType: 'related-crypto-material', relatedCryptoMaterialProperties: { type: 'private-key', size: 2048 } } },
  ],
});

let t: T;
const reports: Record<string, Record<string, string>> = {};

async function surveyed(label: string, data: string, target: string) {
  const { surveyId } = await analysed(t, data, { target });
  const survey = await getJob(t, surveyId);
  reports[label] = Object.fromEntries(survey.steps.filter((s: any) => s.step_type === 'REPORT').map((s: any) => [s.step_label, s.id]));
}

async function search(report: string, query: string): Promise<any[]> {
  const res = await api(`${P(t.projectId)}/v1/report/${report}/search?query=${encodeURIComponent(query)}`, { token: t.token });
  expect(res.status).toBe(200);
  return json(res);
}

const keysOf = (matches: any[]) => matches.map((m) => m.key);

afterAll(() => letRendersFinish([t]));

beforeAll(async () => {
  await importRecords(env.DB, [log4shell as unknown as OsvRecord], 'test');
  t = await dataTenant('search');
  await surveyed('temurin', temurin, 'temurin');
  await surveyed('mastercard', mastercard, 'mastercard');
  await surveyed('other', otherTools, 'other-tools');
  await surveyed('shop', JSON.stringify({
    bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, metadata: { component: { type: 'application', name: 'shop' } },
    components: [{ type: 'library', 'bom-ref': 'log4j-ref', group: 'org.apache.logging.log4j', name: 'log4j-core', version: '2.14.1', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1' }],
  }), 'shop');
}, 120_000);

describe('search finds an entry by every name a person would type', () => {
  it('the name its source CBOM gave it, as well as the normalised name (CBOMkit: SHA1, SHA256-RSA, AES128-GCM)', async () => {
    const sha1 = await search(reports.temurin!['pqc-inventory']!, 'SHA1');
    expect(sha1.length).toBeGreaterThan(0);
    // The same entries as the normalised spelling finds.
    expect(keysOf(await search(reports.temurin!['pqc-inventory']!, 'SHA-1'))).toEqual(keysOf(sha1));
    expect((await search(reports.temurin!['pqc-inventory']!, 'SHA256-RSA')).length).toBeGreaterThan(0);
    const gcm = await search(reports.mastercard!['pqc-inventory']!, 'AES128-GCM');
    expect(gcm.map((m) => m.name)).toContain('AES-128-GCM');
  });

  it('names written by other tools: EC-secp521r1 and desede-168-cbc-pkcs5, in any case', async () => {
    const report = reports.other!['pqc-inventory']!;
    const ec = await search(report, 'EC-secp521r1');
    expect(ec.map((m) => m.bom_ref)).toEqual(['alg-ec-521']);
    expect(keysOf(await search(report, 'ec-SECP521R1'))).toEqual(keysOf(ec));
    expect((await search(report, 'DESEDE-168-CBC-PKCS5')).map((m) => m.bom_ref)).toEqual(['alg-desede']);
  });

  it('common aliases: secp384r1 = P-384, P-521 = secp521r1, 3DES = DESede = TDEA, SHA2-256 = SHA-256', async () => {
    const report = reports.other!['pqc-inventory']!;
    const refs = async (query: string) => (await search(report, query)).map((m) => m.bom_ref);
    expect(await refs('secp384r1')).toEqual(['alg-p384']);
    expect(await refs('prime256v1')).toEqual([]);
    expect(await refs('P-521')).toEqual(['alg-ec-521']);
    for (const name of ['3DES', 'TDEA', 'DESede', 'Triple-DES']) expect(await refs(name)).toEqual(['alg-desede']);
    expect(await refs('SHA2-256')).toEqual(['alg-sha256']);
    expect(await refs('sha256')).toEqual(['alg-sha256']);
  });

  it('the bom-ref, in the inventory and in the CBOM', async () => {
    expect((await search(reports.other!['pqc-inventory']!, 'alg-aes-gcm')).map((m) => m.bom_ref)).toEqual(['alg-aes-gcm']);
    expect((await search(reports.other!.cbom!, 'alg-aes-gcm')).map((m) => m['bom-ref'])).toEqual(['alg-aes-gcm']);
  });

  it('components by package URL, advisory id and the advisory\'s aliases', async () => {
    const report = reports.shop!.composition!;
    expect(await search(report, 'pkg:maven/org.apache.logging.log4j/log4j-core')).toHaveLength(1);
    expect(await search(report, 'ghsa-jfh8-c2jp-5v3q')).toHaveLength(1);
    expect(await search(report, 'CVE-2021-44228')).toHaveLength(1);
    // A version alone is looked for as written: its digits without the dots would match any CVE year.
    expect(await search(report, '2.14.1')).toHaveLength(1);
    expect(await search(report, '2.0')).toHaveLength(0);
  });

  it('case is ignored in every script, not only ASCII (ß = SS, Cyrillic)', async () => {
    const report = reports.other!['pqc-inventory']!;
    expect((await search(report, 'HAUPTSTRASSE')).map((m) => m.bom_ref)).toEqual(['cert-strasse']);
    expect((await search(report, 'hauptstraße')).map((m) => m.bom_ref)).toEqual(['cert-strasse']);
    expect((await search(report, 'КЛЮЧ ПОДПИСИ')).map((m) => m.bom_ref)).toEqual(['key-cyrillic']);
    // Wildcards of SQL match literally.
    expect(await search(report, '%')).toEqual([]);
  });
});

describe('matches come in the report\'s own section order, so the cap keeps the most important', () => {
  it('red before yellow, transition, green and unclassified (not alphabetical), at most 200', async () => {
    const report = reports.temurin!['pqc-inventory']!;
    const matches = await search(report, 'RSA');
    const order = matches.map((m) => PQC_SECTIONS.indexOf(m.section));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(matches.length).toBeLessThanOrEqual(200);
    // Temurin's trust store has more RSA entries than the cap: every one kept is red, none is cut for a greener one.
    const summary = await json(await api(`${P(t.projectId)}/v1/report/${report}/summary`, { token: t.token }));
    const red = summary.sections.find((s: any) => s.name === 'red').total;
    expect(red).toBeGreaterThan(200);
    expect(matches).toHaveLength(200);
    expect(new Set(matches.map((m) => m.section))).toEqual(new Set(['red']));
  });

  it('a query matching red and green entries lists red first', async () => {
    const matches = await search(reports.other!['pqc-inventory']!, 'alg-');
    const sections = matches.map((m) => m.section);
    expect(sections).toContain('red');
    expect(sections).toContain('green');
    expect(sections.indexOf('red')).toBeLessThan(sections.indexOf('green'));
    const order = sections.map((s) => PQC_SECTIONS.indexOf(s as never));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });
});
