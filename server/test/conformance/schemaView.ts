import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';

/**
 * What explain.ts and unknownFields.ts read of the contract (contract.ts's Contract, which calls
 * them and passes itself): compiled validators by JSON pointer, references resolved, and the Ajv
 * instance. An interface, so the contract and its helpers do not import each other.
 */
export interface SchemaView {
  readonly ajv: Ajv2020;
  validator(pointer: string): ValidateFunction;
  resolve(ref: string): any;
}
