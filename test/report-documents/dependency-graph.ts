/// <reference types="vite/client" />
// The documents' dependency graph (docs/decisions.md, "Dependency graph and provided_by"): nested
// components and assets keep their parent's bom-ref, every `dependencies[]` entry is stored as a
// `dependency` row (the same ref in several documents merged), crypto findings name the library that
// provides them, and `bundledComponents` walks what a component bundles. Real fixtures through the
// real pipeline (R2, the analysis queue's consumer, the project object), plus hand-made documents
// for nesting, `provides`, cycles and merging.
import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { projectStub } from '../../src/project/client';
import { bundledComponents, type BundledQuery } from '../../src/project/dependency-graph';
import type { ProjectState } from '../../src/project/project-object';
import { dataTenant } from '../data-plane';
import { analysed, contentsOf, drainPurges, getJob, sbom, storedRowCount, tarGz, type DataTenant } from '../pipeline';

import nginxPass from '../fixtures/cbom/pkic-cbom__nginx-pass.cbom.json?raw';
import kafka from '../fixtures/cbom/ibm-cbomkit__kafka-cbom.json?raw';
import dependencyTrack from '../fixtures/sbom/maven__dependency-track-apiserver-4.5.0.cdx-1.4.json?raw';
import poetry from '../fixtures/sbom/pypi__poetry-regression-issue702.cdx-1.6.json?raw';

/** Runs `body` inside the project object with its state (what its RPC methods hand the area modules). */
const inObject = <T>(projectId: string, body: (state: ProjectState) => T): Promise<T> =>
  runInDurableObject(projectStub(env, projectId), (instance) => body((instance as unknown as { state(): ProjectState }).state()));

/** The survey and attempt whose rows the subject holds (the survey's `analysis_source`). */
async function sourceOf(t: DataTenant, surveyId: string) {
  const source = (await getJob(t, surveyId)).metadata.analysis_source as { survey_id: string; attempt: number };
  return { surveyId: source.survey_id, attempt: source.attempt };
}

const bundled = async (t: DataTenant, surveyId: string, componentKeys: string[], limit?: number) => {
  const source = await sourceOf(t, surveyId);
  const query: BundledQuery = { ...source, componentKeys, ...(limit ? { limit } : {}) };
  return inObject(t.projectId, (state) => bundledComponents(state, query));
};

const providedBy = async (projectId: string, subject: string) => {
  const page = await contentsOf(projectId, subject, 'crypto_finding');
  // By bom-ref: a certificate's finding is keyed by what identifies it (issue 20), its asset by bom-ref.
  return Object.fromEntries(page.items.map((i) => [i.data.bom_ref ?? i.key, i.data.provided_by]));
};

const names = (list: { name: string }[] | undefined) => list?.map((c) => c.name);

describe('provided_by: the library a crypto asset is used through', () => {
  it('nginx-pass: the https protocol and its algorithms through OpenSSL, the ssh ones through OpenSSH', async () => {
    const t = await dataTenant();
    await analysed(t, nginxPass);
    const openssl = { name: 'OpenSSL', purl: 'pkg:generic/openssl@3.4.0', bom_ref: 'lib:openssl' };
    const openssh = { name: 'OpenSSH', purl: 'pkg:generic/openssh@9.6', bom_ref: 'lib:openssh' };
    // crypto:protocol:svc-https dependsOn lib:openssl, the three algorithms and the certificate;
    // crypto:protocol:mgmt-ssh dependsOn lib:openssh and its three algorithms; app:nginx (both
    // libraries and both protocols) says nothing about which serves which.
    expect(await providedBy(t.projectId, 'nginx')).toEqual({
      'crypto:protocol:svc-https': openssl,
      'crypto:algo:aes-256-gcm': openssl,
      'crypto:algo:x25519': openssl,
      'crypto:algo:rsa-2048': openssl,
      'crypto:cert:server-leaf': openssl,
      'crypto:protocol:mgmt-ssh': openssh,
      'crypto:algo:chacha20-poly1305': openssh,
      'crypto:algo:curve25519': openssh,
      'crypto:algo:ed25519': openssh,
    });
    // Every dependencies[] entry is a row, keyed by its ref.
    const graph = await contentsOf(t.projectId, 'nginx', 'dependency');
    expect(graph.items.map((i) => i.key).sort()).toEqual(['app:nginx', 'crypto:cert:server-leaf', 'crypto:protocol:mgmt-ssh', 'crypto:protocol:svc-https']);
    const https = graph.items.find((i) => i.key === 'crypto:protocol:svc-https')!;
    expect(https).toMatchObject({ name: 'crypto:protocol:svc-https', purl: null, version: null });
    expect(https.data).toMatchObject({
      ref: 'crypto:protocol:svc-https', provides: [],
      dependsOn: ['lib:openssl', 'crypto:algo:aes-256-gcm', 'crypto:algo:x25519', 'crypto:algo:rsa-2048', 'crypto:cert:server-leaf'],
    });
    // The content listing without a kind stays what the bundle holds.
    expect((await contentsOf(t.projectId, 'nginx')).total).toBe(11);
  });

  it('a CBOM whose graph names no component (kafka: keys depend on algorithms): provided_by null', async () => {
    const t = await dataTenant();
    const survey = await analysed(t, kafka, { target: 'kafka' });
    const providers = await providedBy(t.projectId, 'kafka');
    expect(Object.keys(providers)).toHaveLength(11);
    expect(Object.values(providers).every((p) => p === null)).toBe(true);
    expect((await contentsOf(t.projectId, 'kafka', 'dependency')).total).toBe(5);
    expect((await getJob(t, survey.surveyId)).steps.find((s: { step_type: string }) => s.step_type === 'ANALYZE').metadata).toMatchObject({ dependencies: 5 });
  });
});

describe('bundledComponents over a real SBOM graph', () => {
  it('dependency-track (bom-refs are the package URLs): the transitive dependencies, breadth first', async () => {
    const t = await dataTenant();
    const survey = await analysed(t, dependencyTrack);
    const maven = (coordinates: string) => `pkg:maven/${coordinates}?type=jar`;
    const jersey2 = maven('io.swagger/swagger-jersey2-jaxrs@1.6.6');
    const beanValidation = maven('org.glassfish.jersey.ext/jersey-bean-validation@2.35');
    const unknown = 'pkg:maven/nobody/nothing@1?type=jar';
    const answer = await bundled(t, survey.surveyId, [jersey2, maven('us.springett/alpine-common@2.0.0'), maven('org.yaml/snakeyaml@1.30'), unknown]);
    // From the file's dependencies[]: swagger-jersey2-jaxrs -> swagger-jaxrs -> (swagger-core,
    // reflections); swagger-core -> (jackson-dataformat-yaml, swagger-models);
    // jackson-dataformat-yaml -> snakeyaml; swagger-models -> swagger-annotations.
    expect(answer[jersey2]!.map((c) => c.key)).toEqual([
      maven('io.swagger/swagger-jaxrs@1.6.6'),
      maven('io.swagger/swagger-core@1.6.6'),
      maven('org.reflections/reflections@0.9.11'),
      maven('com.fasterxml.jackson.dataformat/jackson-dataformat-yaml@2.13.2'),
      maven('io.swagger/swagger-models@1.6.6'),
      maven('org.yaml/snakeyaml@1.30'),
      maven('io.swagger/swagger-annotations@1.6.6'),
    ]);
    expect(answer[jersey2]![0]).toEqual({ key: maven('io.swagger/swagger-jaxrs@1.6.6'), name: 'swagger-jaxrs', purl: maven('io.swagger/swagger-jaxrs@1.6.6'), version: '1.6.6' });
    expect(names(answer[maven('us.springett/alpine-common@2.0.0')])).toEqual(['slf4j-api', 'commons-lang3', 'jackson-annotations']);
    // A leaf bundles nothing; an unknown key answers an empty list too.
    expect(answer[maven('org.yaml/snakeyaml@1.30')]).toEqual([]);
    expect(answer[unknown]).toEqual([]);
    // At most `limit` per component, the nearest first: jersey-bean-validation bundles 12.
    const all = await bundled(t, survey.surveyId, [beanValidation]);
    expect(all[beanValidation]).toHaveLength(12);
    const five = await bundled(t, survey.surveyId, [beanValidation], 5);
    expect(five[beanValidation]).toEqual(all[beanValidation]!.slice(0, 5));
    expect(names(five[beanValidation])!.slice(0, 2)).toEqual(['jakarta.inject', 'jersey-common']);
  });

  it('poetry (bom-refs are name@version, not the keys): found through the bom-ref itself', async () => {
    const t = await dataTenant();
    const survey = await analysed(t, poetry);
    const answer = await bundled(t, survey.surveyId, ['pkg:pypi/starlette@0.45.3', 'pkg:pypi/requests@2.32.3']);
    // starlette -> anyio -> (exceptiongroup, idna, sniffio, typing-extensions) in the file.
    expect(answer['pkg:pypi/starlette@0.45.3']!.map((c) => c.key)).toEqual([
      'pkg:pypi/anyio@4.8.0', 'pkg:pypi/exceptiongroup@1.2.2', 'pkg:pypi/idna@3.10', 'pkg:pypi/sniffio@1.3.1', 'pkg:pypi/typing-extensions@4.12.2',
    ]);
    expect(names(answer['pkg:pypi/requests@2.32.3'])).toEqual(['certifi', 'charset-normalizer', 'idna', 'urllib3']);
    // The analysisRows RPC looks rows up by bom-ref (what the finding derivation uses).
    const source = await sourceOf(t, survey.surveyId);
    const found = (await (projectStub(env, t.projectId) as any).analysisRows({ ...source, kind: 'component', limit: 2, bomRefs: ['anyio@4.8.0', 'idna@3.10', 'nothing@0'] })) as { rows: { key: string }[]; next: null };
    expect(found.rows.map((r) => r.key).sort()).toEqual(['pkg:pypi/anyio@4.8.0', 'pkg:pypi/idna@3.10']);
    expect(found.next).toBeNull();
  });
});

/** A component or asset of the hand-made documents. */
const algorithm = (ref: string, name: string, primitive: string, extra: Record<string, unknown> = {}) => ({
  type: 'cryptographic-asset', 'bom-ref': ref, name, cryptoProperties: { assetType: 'algorithm', algorithmProperties: { primitive, ...extra } },
});
const library = (ref: string, name: string, version: string, extra: Record<string, unknown> = {}) => ({
  type: 'library', 'bom-ref': ref, name, version, purl: `pkg:npm/${name}@${version}`, ...extra,
});

const first = JSON.stringify({
  bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
  components: [
    {
      type: 'application', 'bom-ref': 'app', name: 'app', version: '1.0',
      components: [
        library('lib-a', 'a', '1.0.0', {
          components: [
            // No bom-ref: it belongs to lib-a.
            { type: 'library', name: 'a-inner', version: '0.1.0' },
            algorithm('algo:aes', 'AES-128-GCM', 'ae', { parameterSetIdentifier: '128', mode: 'gcm' }),
          ],
        }),
      ],
    },
    library('lib-b', 'b', '2.0.0'),
    library('lib-c', 'c', '3.0.0', {
      components: [{ type: 'cryptographic-asset', 'bom-ref': 'cert:leaf', name: 'leaf.example', cryptoProperties: { assetType: 'certificate', certificateProperties: { signatureAlgorithmRef: 'algo:rsa' } } }],
    }),
    algorithm('algo:sha256', 'SHA-256', 'hash'),
    algorithm('algo:rsa', 'RSA-2048', 'signature', { parameterSetIdentifier: '2048' }),
    algorithm('algo:md5', 'MD5', 'hash'),
  ],
  dependencies: [
    { ref: 'lib-a', dependsOn: ['lib-b'] },
    { ref: 'lib-b', dependsOn: ['lib-c'] },
    // A cycle back to lib-a; lib-c provides SHA-256 (CycloneDX 1.6 `provides`).
    { ref: 'lib-c', dependsOn: ['lib-a'], provides: ['algo:sha256'] },
  ],
});
const crowd = Array.from({ length: 1500 }, (_, i) => `ext-${i}`);
const second = JSON.stringify({
  bomFormat: 'CycloneDX', specVersion: '1.6', version: 1,
  components: [library('lib-d', 'd', '4.0.0')],
  dependencies: [
    // The same ref as in the first document: the lists are merged.
    { ref: 'lib-b', dependsOn: ['lib-d', 'lib-c'] },
    // Longer than a list may be: 1,000 refs are kept.
    { ref: 'lib-d', dependsOn: crowd },
  ],
});

describe('a hand-made archive: nesting, provides, a cycle, the same ref in two documents', () => {
  it('stores parentRef and the merged graph, names providers, and walks without looping', async () => {
    const t = await dataTenant();
    const bundle = await tarGz({ 'manifest.json': JSON.stringify({ subject: 'handmade' }), 'first.cdx.json': first, 'second.cdx.json': second });
    const survey = await analysed(t, bundle);
    expect((await getJob(t, survey.surveyId)).status).toBe('COMPLETED');

    const components = (await contentsOf(t.projectId, 'handmade', 'component')).items;
    const component = (key: string) => components.find((c) => c.key === key)!.data;
    expect(component('app@1.0')).toMatchObject({ bomRef: 'app', nestedComponents: 1 });
    expect(component('app@1.0').parentRef).toBeUndefined();
    expect(component('pkg:npm/a@1.0.0')).toMatchObject({ bomRef: 'lib-a', parentRef: 'app', nestedComponents: 1 });
    expect(component('a-inner@0.1.0')).toMatchObject({ parentRef: 'lib-a' });
    const assets = (await contentsOf(t.projectId, 'handmade', 'crypto_asset')).items;
    expect(assets.find((a) => a.key === 'algo:aes')!.data.parentRef).toBe('lib-a');
    expect(assets.find((a) => a.key === 'cert:leaf')!.data.parentRef).toBe('lib-c');

    const graph = (await contentsOf(t.projectId, 'handmade', 'dependency')).items;
    expect(graph.map((i) => i.key).sort()).toEqual(['lib-a', 'lib-b', 'lib-c', 'lib-d']);
    expect(graph.find((i) => i.key === 'lib-b')!.data).toMatchObject({ dependsOn: ['lib-c', 'lib-d'], provides: [] });
    expect(graph.find((i) => i.key === 'lib-c')!.data).toMatchObject({ dependsOn: ['lib-a'], provides: ['algo:sha256'] });
    expect(graph.find((i) => i.key === 'lib-d')!.data.dependsOn).toEqual(crowd.slice(0, 1000));

    const a = { name: 'a', purl: 'pkg:npm/a@1.0.0', bom_ref: 'lib-a' };
    const c = { name: 'c', purl: 'pkg:npm/c@3.0.0', bom_ref: 'lib-c' };
    expect(await providedBy(t.projectId, 'handmade')).toEqual({
      'algo:aes': a, // nested in lib-a
      'algo:sha256': c, // lib-c provides it
      'cert:leaf': c, // nested in lib-c
      'algo:rsa': c, // the certificate's signature algorithm inherits
      'algo:md5': null, // nothing says
    });

    const answer = await bundled(t, survey.surveyId, ['app@1.0', 'pkg:npm/a@1.0.0', 'pkg:npm/c@3.0.0', 'pkg:npm/d@4.0.0', 'a-inner@0.1.0']);
    expect(names(answer['app@1.0'])).toEqual(['a', 'b', 'a-inner', 'c', 'd']);
    expect(names(answer['pkg:npm/a@1.0.0'])).toEqual(['b', 'a-inner', 'c', 'd']);
    // lib-c -> lib-a -> lib-b -> lib-c: the walk ends where it started, c never lists itself.
    expect(names(answer['pkg:npm/c@3.0.0'])).toEqual(['a', 'b', 'a-inner', 'd']);
    // 1,000 refs that name no component.
    expect(answer['pkg:npm/d@4.0.0']).toEqual([]);
    // No bom-ref: nothing can name it as a parent or a dependency.
    expect(answer['a-inner@0.1.0']).toEqual([]);
    expect(names((await bundled(t, survey.surveyId, ['app@1.0'], 2))['app@1.0'])).toEqual(['a', 'b']);
  });

  it('a runtime survey leaves the graph; the next inventory survey replaces it, even with none', async () => {
    const t = await dataTenant();
    const inventory = await analysed(t, await tarGz({ 'manifest.json': JSON.stringify({ subject: 'handmade' }), 'first.cdx.json': first }));
    const runtime = await analysed(t, await tarGz({
      'manifest.json': JSON.stringify({ subject: 'handmade', runtime: true }),
      'runtime/tls.jsonl': JSON.stringify({ algorithm: 'ECDHE', protocol: 'TLSv1.3', library: 'openssl', count: 3 }),
    }), { jobType: 'RUNTIME_SURVEY' });
    expect((await getJob(t, runtime.surveyId)).status).toBe('COMPLETED');
    const graph = await contentsOf(t.projectId, 'handmade', 'dependency');
    expect(graph.total).toBe(3);
    expect(graph.items.every((i) => i.survey_id === inventory.surveyId)).toBe(true);

    await analysed(t, sbom('handmade', [['plain', '1.0.0']]));
    expect((await contentsOf(t.projectId, 'handmade', 'dependency')).total).toBe(0);
    expect((await contentsOf(t.projectId, 'handmade', 'observation')).total).toBe(1);
    // The old graph is deleted with the rest of the old inventory.
    await drainPurges(t.projectId);
    expect(await storedRowCount(t.projectId, inventory.surveyId)).toBe(0);
  });
});
