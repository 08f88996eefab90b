// A small fixed area where functions leave secondary results (offsets, parsed header fields)
// for the wrapper to read with one typed view, instead of allocating a result object.
export const RESULT: usize = memory.data(64, 16);

export function resultAddress(): usize {
  return RESULT;
}
