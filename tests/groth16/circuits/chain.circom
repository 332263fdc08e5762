pragma circom 2.0.0;

// Test circuit for tests/groth16/test_circom.sh: a few thousand constraints mixing
// multiplications, linear combinations with large coefficients, and bit decompositions
// (0/1 witness values), with two public outputs and two public inputs.

// Decomposes `in` into n bits (little-endian) and checks the recomposition.
template Bits(n) {
    signal input in;
    signal output out[n];
    var acc = 0;
    var pow = 1;
    for (var i = 0; i < n; i++) {
        out[i] <-- (in >> i) & 1;
        out[i] * (out[i] - 1) === 0;
        acc += out[i] * pow;
        pow = pow + pow;
    }
    acc === in;
}

// x_{i+1} = x_i^2 + 7 x_i + b, with a running product of selected steps.
template Chain(N) {
    signal input x0;       // public
    signal input seed;     // public
    signal input b;        // private
    signal input small;    // private, < 2^32
    signal output last;
    signal output mix;

    signal x[N + 1];
    signal sq[N];
    signal prod[N + 1];
    signal gate[N];

    component bits = Bits(32);
    bits.in <== small;

    x[0] <== x0 + seed * 3;
    prod[0] <== seed + 1;
    for (var i = 0; i < N; i++) {
        sq[i] <== x[i] * x[i];
        x[i + 1] <== sq[i] + 7 * x[i] + b;
        // a product gated by one of the 32 bits: prod * (1 + bit * (x - 1))
        gate[i] <== bits.out[i % 32] * (x[i + 1] - 1);
        prod[i + 1] <== prod[i] * (1 + gate[i]);
    }
    last <== x[N];
    mix <== prod[N] * 21888242871839275222246405745257275088548364400416034343698204186575808495617 + x[N] * b;
}

component main {public [x0, seed]} = Chain(1200);
