pragma circom 2.0.0;

// A dense benchmark circuit: t[i] = t[i-1]^2 + x, N multiplication constraints, every witness
// value a full-size field element (no 0/1 scalars), one public input x and one public output.
template Chain(N) {
    signal input x;
    signal input y;
    signal output out;
    signal t[N];
    t[0] <== x * y;
    for (var i = 1; i < N; i++) { t[i] <== t[i-1] * t[i-1] + x; }
    out <== t[N-1];
}

component main {public [x]} = Chain(33000);
