// Versions of the analysis inputs, recorded in every report's provenance: a report says which logic
// made it. Raise ANALYSIS_VERSION when what an analysis stores or derives changes, and
// CLASSIFICATION_VERSION with every change of the classification table (src/analysis/crypto).
// 1.1.0: the documents' dependency graph is stored (`dependency` rows), nested components and assets
// keep their parent's bom-ref (`parentRef`), and crypto findings name the library that provides
// them (`provided_by`).
export const ANALYSIS_VERSION = '1.1.0';
export const CLASSIFICATION_VERSION = '2026-11-24.2';
