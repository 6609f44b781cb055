// Versions of the analysis inputs, recorded in every report's provenance: a report says which logic
// made it. Raise ANALYSIS_VERSION when what an analysis stores or derives changes, and
// CLASSIFICATION_VERSION with every change of the classification table (src/analysis/crypto).
export const ANALYSIS_VERSION = '1.0.0';
export const CLASSIFICATION_VERSION = '2026-11-24.2';
