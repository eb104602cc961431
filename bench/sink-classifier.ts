/** The classifier bench/sink-throughput.ts gives its counting inbox: every request is the bench's, answered 200. */
export function createClassifier(_data: unknown) {
  return {
    answer: (_role: string, _rest: string): number => 200,
    classify: (arrival: { readonly rest: string }): string => arrival.rest,
  };
}
