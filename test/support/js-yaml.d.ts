// js-yaml 4 ships no types and @types/js-yaml is not a dependency: the one function the CI recipes test uses.
declare module 'js-yaml' {
  export function load(source: string): unknown;
}
