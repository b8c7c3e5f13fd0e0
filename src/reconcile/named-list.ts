// Names spelled out in a message (a warning, a refusal): the first so many, then "and N more", so a
// mount with thousands of roles gives a readable line. The plans and the provider's diagnostics share it.

/** The first `max` names, each written by `show` (quoted by default), then "and N more" for the rest. */
export function namedList(names: readonly string[], max: number, show: (name: string) => string = (n) => JSON.stringify(n)): string {
  const shown = names.slice(0, max).map(show).join(', ');
  return names.length > max ? `${shown} and ${names.length - max} more` : shown;
}
