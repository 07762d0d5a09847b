// Coulomb sum on a 3D grid, written for pcsearch (the benchmark of the paper's section 2).
//
// Every grid point receives the electrostatic potential of all atoms: sum of q / r. pcsearch defines
// the problem sizes GRID_SIZE and ATOMS and the tuning parameters:
//   BLOCK_X, BLOCK_Y      threads per block in x and y
//   Z_ITERATIONS          grid points each thread computes along z (thread coarsening)
//   VECTOR_SIZE           grid points each thread computes along x, BLOCK_X apart (coalesced stores)
//   INNER_UNROLL          unroll factor of the loop over atoms
//   USE_SOA               atoms as four arrays (1) or as one float4 array (0)
//   USE_CONSTANT_MEMORY   atoms read from __constant__ memory (float4 layout only)

#define PCS_STRINGIFY(x) #x
#define PCS_UNROLL(n) _Pragma(PCS_STRINGIFY(unroll n))

#if USE_CONSTANT_MEMORY
// 16 bytes per atom: ATOMS must stay below 4096 to fit the 64 KiB constant bank.
__constant__ float4 atoms_const[ATOMS];
#endif

extern "C" __global__ void coulomb_sum(const float4* __restrict__ atoms,
                                       const float* __restrict__ atom_x,
                                       const float* __restrict__ atom_y,
                                       const float* __restrict__ atom_z,
                                       const float* __restrict__ atom_q,
                                       float* __restrict__ energy,
                                       const float spacing)
{
    const int x0 = blockIdx.x * BLOCK_X * VECTOR_SIZE + threadIdx.x;
    const int y = blockIdx.y * BLOCK_Y + threadIdx.y;
    const int z0 = blockIdx.z * Z_ITERATIONS;

    float px[VECTOR_SIZE];
#pragma unroll
    for (int v = 0; v < VECTOR_SIZE; v++)
        px[v] = (x0 + v * BLOCK_X) * spacing;
    const float py = y * spacing;

    float sum[Z_ITERATIONS][VECTOR_SIZE];
#pragma unroll
    for (int k = 0; k < Z_ITERATIONS; k++)
#pragma unroll
        for (int v = 0; v < VECTOR_SIZE; v++)
            sum[k][v] = 0.0f;

    PCS_UNROLL(INNER_UNROLL)
    for (int a = 0; a < ATOMS; a++) {
#if USE_CONSTANT_MEMORY
        const float4 atom = atoms_const[a];
        const float ax = atom.x, ay = atom.y, az = atom.z, q = atom.w;
#elif USE_SOA
        const float ax = atom_x[a], ay = atom_y[a], az = atom_z[a], q = atom_q[a];
#else
        const float4 atom = atoms[a];
        const float ax = atom.x, ay = atom.y, az = atom.z, q = atom.w;
#endif
        const float dy = py - ay;
        const float dy2 = dy * dy;
#pragma unroll
        for (int k = 0; k < Z_ITERATIONS; k++) {
            const float dz = (z0 + k) * spacing - az;
            const float dyz2 = dy2 + dz * dz;
#pragma unroll
            for (int v = 0; v < VECTOR_SIZE; v++) {
                const float dx = px[v] - ax;
                sum[k][v] += q * rsqrtf(dx * dx + dyz2);
            }
        }
    }

#pragma unroll
    for (int k = 0; k < Z_ITERATIONS; k++)
#pragma unroll
        for (int v = 0; v < VECTOR_SIZE; v++)
            energy[((z0 + k) * GRID_SIZE + y) * GRID_SIZE + x0 + v * BLOCK_X] = sum[k][v];
}
