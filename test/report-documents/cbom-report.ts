// The `cbom` report keeps what the source said (issue 20), and no key's value goes anywhere: fixture
// CBOMs analysed by the real consumer, their reports built and rendered through the real queues, the
// documents read back, the project's whole storage and the logs searched. Each test names its rule.
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { projectStub } from '../../src/project/client';
import { cbom } from '../cbom-fixtures';
import { validateCycloneDx } from '../cyclonedx-schema';
import { api, json } from '../helpers';
import { dataTenant } from '../data-plane';
import { analysed, getJob, letRendersFinish, P, renderDocuments } from '../pipeline';

type T = Awaited<ReturnType<typeof dataTenant>>;
const FIXTURES = {
  theia: 'ibm-cbomkit-theia__certificates.cbom.json', full: 'cyclonedx-spec__valid-cryptography-full-1.6.json',
  advanced: 'cyclonedx-spec__valid-cryptography-certificate-advanced-1.7.json', nginx: 'pkic-cbom__nginx-pass.cbom.json', kafka: 'ibm-cbomkit__kafka-cbom.json',
} as const;

const reportId = (survey: any, label: string) => survey.steps.find((s: any) => s.step_label === label).id;
const get = (t: T, path: string) => api(`${P(t.projectId)}/v1/report${path}`, { token: t.token });

/** Every key `value` the fixtures hold, as the distinctive middle of each (RSA keys share their first bytes). */
const secrets = Object.values(FIXTURES).flatMap((file) => JSON.parse(cbom(file)).components
  .map((c: any) => c.cryptoProperties?.relatedCryptoMaterialProperties?.value).filter(Boolean)
  .map((value: string) => (value.length > 120 ? value.slice(60, 120) : value)));

let t: T;
const surveys: Record<string, any> = {};
const documents: Record<string, any> = {};
const logged: string[] = [];

beforeAll(async () => {
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void logged.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')));
  }
  t = await dataTenant('cbom-report');
  for (const [name, file] of Object.entries(FIXTURES)) {
    const survey = await analysed(t, cbom(file), { target: name });
    surveys[name] = await getJob(t, survey.surveyId);
    documents[name] = await json(await get(t, `/${reportId(surveys[name], 'cbom')}`));
  }
});

afterAll(async () => {
  await letRendersFinish([t]);
  vi.restoreAllMocks();
});

describe('rule: the cbom report keeps what the source said', () => {
  it('every survey completed and every cbom is a CycloneDX 1.6 document that validates against the official schema', () => {
    for (const [name, survey] of Object.entries(surveys)) {
      expect(survey.status, name).toBe('COMPLETED');
      expect(documents[name]).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.6' });
      validateCycloneDx(documents[name]);
    }
  });

  it('evidence: every occurrence with its location, line, offset and context', () => {
    const key = documents.kafka.components.find((c: any) => c['bom-ref'] === '3ebe86a3-4373-4c3e-a32b-6b6dc3baee59');
    const source = JSON.parse(cbom(FIXTURES.kafka)).components.find((c: any) => c['bom-ref'] === '3ebe86a3-4373-4c3e-a32b-6b6dc3baee59');
    expect(key.evidence.occurrences).toEqual(source.evidence.occurrences);
    expect(documents.theia.components.find((c: any) => c['bom-ref'] === '13885dcb57368606').evidence.occurrences).toHaveLength(5);
  });

  it('dependencies: the source graph among the document\'s components, with the libraries it ties to them', () => {
    const { components, dependencies } = documents.nginx;
    const refs = new Set(components.map((c: any) => c['bom-ref']));
    expect(components.find((c: any) => c['bom-ref'] === 'lib:openssl')).toMatchObject({ type: 'library', name: 'OpenSSL', version: '3.4.0', purl: 'pkg:generic/openssl@3.4.0' });
    expect(dependencies).toContainEqual({ ref: 'crypto:protocol:svc-https', dependsOn: ['lib:openssl', 'crypto:algo:aes-256-gcm', 'crypto:algo:x25519', 'crypto:algo:rsa-2048', 'crypto:cert:server-leaf'] });
    expect(dependencies).toContainEqual({ ref: 'crypto:cert:server-leaf', dependsOn: ['crypto:algo:rsa-2048'] });
    // Every ref a dependency names is in the document (the application, not a component of the CBOM, is left out).
    for (const d of dependencies) for (const ref of [d.ref, ...d.dependsOn, ...(d.provides ?? [])]) expect(refs.has(ref), ref).toBe(true);
    expect(documents.kafka.dependencies).toHaveLength(5);
  });

  it('descriptions, certification levels and every 1.6 property of each asset type; 1.7-only fields as properties', () => {
    const protocol = documents.nginx.components.find((c: any) => c['bom-ref'] === 'crypto:protocol:svc-https');
    expect(protocol.description).toBe('Cryptographic relationship (edge): TLS 1.3 session between a browser and nginx.');
    expect(protocol.properties).toContainEqual({ name: 'pkic:profile:interfaceId', value: 'svc-https' });
    const full = Object.fromEntries(documents.full.components.map((c: any) => [c['bom-ref'], c.cryptoProperties]));
    expect(full['asset-1'].algorithmProperties).toEqual({
      primitive: 'ae', parameterSetIdentifier: '128', curve: 'brainpoolP160r1', executionEnvironment: 'software-plain-ram', implementationPlatform: 'x86_64',
      certificationLevel: ['fips140-1-l4'], mode: 'gcm', padding: 'pkcs5', cryptoFunctions: ['keygen', 'encrypt', 'decrypt', 'tag'], classicalSecurityLevel: 128, nistQuantumSecurityLevel: 1,
    });
    expect(full['asset-3'].protocolProperties.ikev2TransformTypes).toEqual({ encr: ['bom-ref-to-encr'], prf: ['bom-ref-to-prf'], integ: ['bom-ref-to-integ'], ke: ['bom-ref-to-ke'], esn: true, auth: ['bom-ref-to-auth'] });
    expect(full['asset-4'].relatedCryptoMaterialProperties).toEqual({
      type: 'private-key', id: '12345', state: 'active', algorithmRef: 'bom-ref-to-algorithm', creationDate: '2024-01-01T00:00:00.000Z', activationDate: '2024-01-02T00:00:00.000Z',
      updateDate: '2024-01-03T00:00:00.000Z', expirationDate: '2024-01-04T00:00:00.000Z', size: 1024, format: 'PEM', securedBy: { mechanism: 'HSM', algorithmRef: 'bom-ref-to-algorithm' },
    });
    expect(full['asset-2'].certificateProperties).toMatchObject({ subjectName: 'Subject name here', notValidBefore: '2022-01-01T00:00:00.000Z', certificateExtension: 'crt' });
    const advanced = Object.fromEntries(documents.advanced.components.map((c: any) => [c.name, c]));
    expect(advanced['ECDSA-P256'].cryptoProperties.algorithmProperties.certificationLevel).toEqual(['fips140-3-l1']);
    expect(advanced['revoked-internal-ca.example.com'].properties).toContainEqual({ name: 'posture:certificate-serial-number', value: 'ABCDEF1234567890FEDCBA' });
    expect(advanced['revoked-internal-ca.example.com'].hashes).toEqual([{ alg: 'SHA-256', content: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' }]);
  });
});

describe('rule: a key\'s value is never copied into a report, document or log (a fingerprint stands in)', () => {
  it('the cbom carries the key\'s fingerprint, not its value', () => {
    const key = documents.theia.components.find((c: any) => c['bom-ref'] === 'a19c7b64f714c67e');
    expect(key.cryptoProperties.relatedCryptoMaterialProperties).toEqual({ type: 'public-key', algorithmRef: '7b45e5bab540842b', size: 8192, format: 'PEM' });
    expect(key.hashes).toEqual([{ alg: 'SHA-256', content: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    expect(secrets.length).toBeGreaterThan(8);
  });

  it('secret material gets no fingerprint: its hash could be guessed, and would match across projects (the spec\'s private key)', async () => {
    const key = documents.full.components.find((c: any) => c['bom-ref'] === 'asset-4');
    expect(key.cryptoProperties.relatedCryptoMaterialProperties.type).toBe('private-key');
    expect(key.hashes).toBeUndefined();
    const section = await json(await get(t, `/${reportId(surveys.full, 'pqc-inventory')}/section/unclassified`));
    const entries = [...section.entries ?? section.items ?? []];
    const entry = entries.find((e: any) => e.bom_ref === 'asset-4' || e.key === 'asset-4');
    expect(entry).toBeDefined();
    expect(entry.fingerprint ?? null).toBeNull();
  });

  it('no value in the project\'s storage (contents, findings, report entries, every table), the reports, their documents or the logs', async () => {
    const stored = await runInDurableObject(projectStub(env, t.projectId), (_instance, state) => {
      const tables = state.storage.sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'").toArray().map((r) => r.name);
      return tables.map((table) => JSON.stringify(state.storage.sql.exec(`SELECT * FROM "${table}"`).toArray())).join('\n');
    });
    expect(stored).toContain('a19c7b64f714c67e');
    const reports: string[] = [];
    for (const survey of Object.values(surveys)) {
      for (const label of ['cbom', 'pqc-inventory']) reports.push(await (await get(t, `/${reportId(survey, label)}`)).text());
    }
    // The rendered documents with text inside (csv, html) of the certificates survey's reports.
    const texts: string[] = [];
    await renderDocuments(t, { formats: ['csv', 'html'], reportIds: ['cbom', 'pqc-inventory'].map((label) => reportId(surveys.theia, label)) });
    for (const label of ['cbom', 'pqc-inventory']) {
      for (const format of ['csv', 'html']) {
        await vi.waitFor(async () => expect((await get(t, `/${reportId(surveys.theia, label)}/export/${format}`)).status).toBe(200), { timeout: 30_000, interval: 200 });
        texts.push(await (await get(t, `/${reportId(surveys.theia, label)}/export/${format}`)).text());
      }
    }
    expect(texts.join('').length).toBeGreaterThan(1000);
    for (const secret of secrets) {
      for (const [where, text] of [['storage', stored], ['reports', reports.join('\n')], ['documents', texts.join('\n')], ['logs', logged.join('\n')]] as const) {
        expect(text.includes(secret), `${where} holds a key's value`).toBe(false);
      }
    }
  });
});

describe('the pqc-inventory report reads the classification through the pipeline', () => {
  it('rule: links — the keys CBOMkit left without algorithm are red through their dependencies', async () => {
    const red = await json(await get(t, `/${reportId(surveys.kafka, 'pqc-inventory')}/section/red`));
    expect(red.entries.filter((e: any) => e.assetType === 'related-crypto-material').map((e: any) => e.name).sort()).toEqual(['DSA-2048 secret-key', 'EC secret-key', 'RSA-2048 secret-key']);
    const unclassified = await json(await get(t, `/${reportId(surveys.kafka, 'pqc-inventory')}/section/unclassified`));
    expect(unclassified.entries.map((e: any) => e.name).sort()).toEqual(['PRIVATE KEY', 'secret-key@65c423f4-6a60-4051-8edc-1a5f782fea48']);
  });

  it('rule: one certificate is one asset — the .pem and the .der of one file are one entry with two occurrences', async () => {
    const red = await json(await get(t, `/${reportId(surveys.theia, 'pqc-inventory')}/section/red`));
    const example = red.entries.filter((e: any) => e.name === 'www.example.com');
    expect(example).toHaveLength(1);
    expect(example[0]).toMatchObject({ occurrences: 2, trustAnchor: false, deadline: '2013-12-31' });
    expect(red.entries.filter((e: any) => e.assetType === 'certificate')).toHaveLength(7);
    const root = red.entries.find((e: any) => e.name === 'DigiCert Assured ID Root CA');
    expect(root).toMatchObject({ trustAnchor: true, deadline: '2030-12-31', algorithm: 'RSA-2048', subject_cn: 'DigiCert Assured ID Root CA' });
  });
});
