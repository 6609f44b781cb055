// How CycloneDX's impact analysis and OpenVEX's status name the same thing (docs/triage.md, "VEX").
// Decisions are kept in CycloneDX's terms; OpenVEX documents are read into them and written from them.
import type { DecisionState } from '../triage/decision';

export const OPENVEX_STATUSES = ['not_affected', 'affected', 'fixed', 'under_investigation'] as const;
export type OpenVexStatus = (typeof OPENVEX_STATUSES)[number];

export const OPENVEX_JUSTIFICATIONS = [
  'component_not_present', 'vulnerable_code_not_present', 'vulnerable_code_not_in_execute_path',
  'vulnerable_code_cannot_be_controlled_by_adversary', 'inline_mitigations_already_exist',
] as const;
export type OpenVexJustification = (typeof OPENVEX_JUSTIFICATIONS)[number];

/** OpenVEX status -> CycloneDX state. */
export const STATE_OF_STATUS: Record<OpenVexStatus, DecisionState> = {
  not_affected: 'not_affected',
  affected: 'exploitable',
  fixed: 'resolved',
  under_investigation: 'in_triage',
};

/** CycloneDX state -> OpenVEX status (`false_positive` is "not affected": the code in question is not there). */
export const STATUS_OF_STATE: Record<DecisionState, OpenVexStatus> = {
  not_affected: 'not_affected',
  false_positive: 'not_affected',
  exploitable: 'affected',
  resolved: 'fixed',
  resolved_with_pedigree: 'fixed',
  in_triage: 'under_investigation',
};

/** OpenVEX justification -> CycloneDX justification. */
export const JUSTIFICATION_OF_OPENVEX: Record<OpenVexJustification, string> = {
  component_not_present: 'code_not_present',
  vulnerable_code_not_present: 'code_not_present',
  vulnerable_code_not_in_execute_path: 'code_not_reachable',
  vulnerable_code_cannot_be_controlled_by_adversary: 'requires_environment',
  inline_mitigations_already_exist: 'protected_by_mitigating_control',
};

/** CycloneDX justification -> OpenVEX justification. */
export const OPENVEX_OF_JUSTIFICATION: Record<string, OpenVexJustification> = {
  code_not_present: 'vulnerable_code_not_present',
  code_not_reachable: 'vulnerable_code_not_in_execute_path',
  requires_configuration: 'vulnerable_code_cannot_be_controlled_by_adversary',
  requires_dependency: 'vulnerable_code_cannot_be_controlled_by_adversary',
  requires_environment: 'vulnerable_code_cannot_be_controlled_by_adversary',
  protected_by_compiler: 'inline_mitigations_already_exist',
  protected_at_runtime: 'inline_mitigations_already_exist',
  protected_at_perimeter: 'inline_mitigations_already_exist',
  protected_by_mitigating_control: 'inline_mitigations_already_exist',
};
