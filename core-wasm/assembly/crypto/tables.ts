// Fixed addresses for lookup tables in the low 16 KiB of linear memory, which asconfig.json's
// memoryBase keeps free of AssemblyScript data. Being compile-time constants, the table bases
// become the immediate offsets of the loads, so the engine folds them into the addressing mode
// instead of adding them on every lookup (measurably faster for AES and GHASH).

/** AES Te0..Te3: 4 x 256 u32 (aes.ts). */
export const TE_ADDR: usize = 1024;
/** AES S-box, 256 bytes (key expansion). */
export const SBOX_ADDR: usize = 5120;
/** GHASH reduction constants for a byte shifted out: 256 u64 (ghash.ts). */
export const LAST8_ADDR: usize = 6144;
/** End of the fixed region (must stay <= memoryBase in asconfig.json). */
export const TABLES_END: usize = 8192;
