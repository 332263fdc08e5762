pragma circom 2.0.0;

// A tiny circuit whose compiled .r1cs and .wtns are committed in tests/vectors/groth16/
// (see the README there), so that the circom readers are tested without node.
template Small() {
    signal input a;   // public
    signal input b;
    signal input c;
    signal output y;
    signal output z;
    signal t;

    t <== a * b;
    y <== t * c + 5;
    z <== (a + 2 * b + c) * (a - b);
}

component main {public [a]} = Small();
