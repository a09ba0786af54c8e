// The one collection a newman run of several steps runs: a folder per step, the steps' collection variables once each
// (src/run/newman-adapter.ts runs it); which step each item belongs to is src/runner-rules.ts's itemSteps.

/** One collection with a folder per step, so consecutive steps share one newman.run (its fixed cost is paid once and
 *  the environment flows inside the run exactly as between runs). Item names are unique across the flow, so
 *  setNextRequest loops keep working. */
export function batchCollection(steps: readonly { name: string; collection: object }[]): object {
  // Collection variables belong to the collection, not to a folder: the batch carries every step's, each key once.
  // obflow's collections carry none since their schemas moved into the checks (docs/collections.md "Schemas"); a
  // hand-edited step collection may.
  const variables = new Map<string, unknown>();
  for (const step of steps) {
    for (const variable of (step.collection as { variable?: { key?: unknown }[] }).variable ?? []) {
      if (typeof variable.key === 'string' && !variables.has(variable.key)) variables.set(variable.key, structuredClone(variable));
    }
  }
  return {
    info: {
      name: `obflow run: ${steps.map((step) => step.name).join(', ')}`,
      schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
    },
    item: steps.map((step) => {
      const definition = step.collection as { item?: unknown; event?: unknown };
      return { name: step.name, item: structuredClone(definition.item ?? []), event: structuredClone(definition.event ?? []) };
    }),
    variable: [...variables.values()],
  };
}
