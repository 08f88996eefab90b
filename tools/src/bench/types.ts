/** What a benchmark returns: every figure it measured, ours and the peer's, and their ratios. */
export interface BenchResult {
  description: string;
  figures: Record<string, number | string>;
  notes?: string[];
}
