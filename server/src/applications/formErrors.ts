import type { FieldErrorTree } from '@social-layer/protocol';
import { Errors } from '../errors/ApiError.ts';

/**
 * Collects the semantic errors of an application edit (rules a schema cannot say: URL policy,
 * editable flags, image bytes) in the public 50035 tree, so one answer names every problem.
 */
export class FieldErrors {
  readonly tree: FieldErrorTree = {};
  count = 0;

  add(path: (string | number)[], code: string, message: string): void {
    let node: FieldErrorTree = this.tree;
    for (const key of path) node = (node[String(key)] ??= {}) as FieldErrorTree;
    ((node._errors as { code: string; message: string }[] | undefined) ??= []).push({ code, message });
    this.count++;
  }

  throwIfAny(): void {
    if (this.count > 0) throw Errors.invalidForm(this.tree);
  }
}
