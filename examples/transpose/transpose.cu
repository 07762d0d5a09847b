// Out-of-place transpose of an N x N float matrix, written for pcsearch.
//
// A block moves one TILE x TILE tile. pcsearch defines the problem size N and the tuning parameters:
//   TILE          tile edge; the block is TILE threads wide
//   WPT           rows each thread moves (the block is TILE / WPT threads high)
//   USE_SHARED    stage the tile in shared memory so that reads and writes are both coalesced
//   PADDING       one extra column in the shared tile, avoiding bank conflicts on the transposed read
//   DIAGONAL      visit tiles in diagonal order, spreading concurrent blocks over memory partitions
//   UNROLL        unroll the loop over a thread's rows

#if UNROLL
#define PCS_ROWS_LOOP _Pragma("unroll")
#else
#define PCS_ROWS_LOOP _Pragma("unroll 1")
#endif

#define BLOCK_ROWS (TILE / WPT)

extern "C" __global__ void transpose(float* __restrict__ out, const float* __restrict__ in)
{
#if DIAGONAL
    // Square grid: this is a permutation of the tiles.
    const int tile_y = blockIdx.x;
    const int tile_x = (blockIdx.x + blockIdx.y) % gridDim.x;
#else
    const int tile_x = blockIdx.x;
    const int tile_y = blockIdx.y;
#endif

#if USE_SHARED
    __shared__ float tile[TILE][TILE + PADDING];
    int x = tile_x * TILE + threadIdx.x;
    int y = tile_y * TILE + threadIdx.y;
    PCS_ROWS_LOOP
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * N + x];
    __syncthreads();
    x = tile_y * TILE + threadIdx.x;
    y = tile_x * TILE + threadIdx.y;
    PCS_ROWS_LOOP
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        out[(size_t)(y + j) * N + x] = tile[threadIdx.x][threadIdx.y + j];
#else
    const int x = tile_x * TILE + threadIdx.x;
    const int y = tile_y * TILE + threadIdx.y;
    PCS_ROWS_LOOP
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        out[(size_t)x * N + y + j] = in[(size_t)(y + j) * N + x];
#endif
}
