// Versions of the analysis inputs, recorded in every report's provenance: a report says which logic
// made it. Raise ANALYSIS_VERSION when what an analysis stores or derives changes, and
// CLASSIFICATION_VERSION with every change of the classification table (src/analysis/crypto).
// 1.1.0: the documents' dependency graph is stored (`dependency` rows), nested components and assets
// keep their parent's bom-ref (`parentRef`), and crypto findings name the library that provides
// them (`provided_by`).
// 1.2.0 (issue 20): crypto assets keep what the source said (evidence occurrences, description,
// properties, every 1.6 property, fingerprints; never a key's value) and unnamed certificates a name a
// person recognises; crypto findings are classified through the documents' dependency graph, one
// certificate found at several paths is one finding keyed by its identity (fingerprint, issuer and
// serial, else subject key and signature: certificate finding keys change), and entries carry
// `algorithm`, `trustAnchor`, `subject_cn`, `fingerprint` and `bom_refs`.
export const ANALYSIS_VERSION = '1.2.0';
// 2026-11-27.1: keys through what they belong to, trust anchors by their key, a date on every red row,
// HMACSHA2 / ConcatenationKDF / MGF1, hashes in cipher suites by their role.
export const CLASSIFICATION_VERSION = '2026-11-27.1';
