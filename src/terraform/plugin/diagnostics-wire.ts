// Diagnostics and attribute paths on the wire, and the rule that a handler's failure is an error
// diagnostic (with its attribute path when it has one), never a crashed provider.
import { DiagnosticsError, type AttributePath, type Diagnostic } from './contract';

export interface WireStep {
  attribute_name?: string;
  element_key_string?: string;
  element_key_int?: number;
}

export interface WireDiagnostic {
  severity: number;
  summary: string;
  detail: string;
  attribute?: { steps: WireStep[] };
}

export function pathToWire(path: AttributePath): { steps: WireStep[] } {
  return {
    steps: path.map((step) => {
      if (typeof step === 'string') return { attribute_name: step };
      if ('key' in step) return { element_key_string: step.key };
      return { element_key_int: step.index };
    }),
  };
}

export function diagnosticToWire(d: Diagnostic): WireDiagnostic {
  const out: WireDiagnostic = { severity: d.severity === 'error' ? 1 : 2, summary: d.summary, detail: d.detail ?? '' };
  if (d.attribute && d.attribute.length > 0) out.attribute = pathToWire(d.attribute);
  return out;
}

/** The diagnostics a thrown value stands for. */
export function errorDiagnostics(err: unknown): Diagnostic[] {
  if (err instanceof DiagnosticsError) return err.diagnostics;
  const message = err instanceof Error ? err.message : String(err);
  return [{ severity: 'error', summary: message || 'internal error in the provider' }];
}

export function hasError(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}
