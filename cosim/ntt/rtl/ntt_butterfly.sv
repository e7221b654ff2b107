// ntt_butterfly: one unified radix-2 butterfly mod q, pipelined.
//
//   forward (Cooley-Tukey):    v = y w mod q;        x' = x + v,      y' = x - v      (mod q)
//   inverse (Gentleman-Sande): x' = (x + y) / 2,     y' = ((y - x) / 2) w             (mod q)
//
// The inverse takes the mirrored forward twiddle w = psi^brev(2h - 1 - i), which equals
// -psi^-brev(h + i) (psi^N = -1), so y - x replaces x - y and one twiddle table serves both
// directions. Halving every inverse stage gives the 1/N scale of the inverse transform
// (2^-log2 N) without a final pass: a/2 mod q = a even ? a >> 1 : (a + q) >> 1 for odd q.
//
// Modular multiplier: Montgomery (P. L. Montgomery, "Modular multiplication without trial
// division", Math. Comp. 44, 1985) with R = 2^WIDTH. The twiddle arrives in Montgomery form
// w = W R mod q, so REDC(y w) = y W mod q is back in the normal domain and the coefficient
// streams never change representation. Chosen over Barrett because R is a power of two fixed by
// the datapath: the quotient estimate is a low-half product and the reduction a constant shift,
// for every modulus up to WIDTH bits, where Barrett needs a shift by the modulus' bit length
// (a barrel shifter per lane) and a (WIDTH+1)-bit constant. Its constant is q' = -q^-1 mod 2^WIDTH.
//
// Pipeline (one register per step, then EXTRA delay registers): S1 inverse add/sub and halving;
// M1 t = b w; M2 m = (t mod R) q' mod R; M3 u = (t + m q) / R (u < 2q); M4 u - q if u >= q;
// S2 forward add/sub. Latency 6 + EXTRA cycles; one butterfly per cycle. Operands < q < 2^WIDTH.
module ntt_butterfly #(
  parameter int unsigned WIDTH = 64,
  parameter int unsigned EXTRA = 0
) (
  input  logic             clk,
  input  logic             inverse,
  input  logic [WIDTH-1:0] x,
  input  logic [WIDTH-1:0] y,
  input  logic [WIDTH-1:0] w,
  input  logic [WIDTH-1:0] q,
  input  logic [WIDTH-1:0] q_inv,
  output logic [WIDTH-1:0] x_out,
  output logic [WIDTH-1:0] y_out
);
  localparam int unsigned W = WIDTH;

  // a + b mod q and a - b mod q for a, b < q.
  function automatic logic [W-1:0] add_mod(input logic [W-1:0] a, input logic [W-1:0] b,
                                           input logic [W-1:0] m);
    logic [W:0] s;
    s = {1'b0, a} + {1'b0, b};
    return (s >= {1'b0, m}) ? W'(s - {1'b0, m}) : W'(s);
  endfunction
  function automatic logic [W-1:0] sub_mod(input logic [W-1:0] a, input logic [W-1:0] b,
                                           input logic [W-1:0] m);
    return (a >= b) ? a - b : W'({1'b0, a} + {1'b0, m} - {1'b0, b});
  endfunction
  // (a + m) / 2 for odd a and odd m is (a >> 1) + (m >> 1) + 1; below m for a < m.
  function automatic logic [W-1:0] half_mod(input logic [W-1:0] a, input logic [W-1:0] m);
    return (a >> 1) + (a[0] ? (m >> 1) + W'(1) : '0);
  endfunction

  // S1
  logic [W-1:0] a1, b1, w1, q1, qi1;
  logic         inv1;
  always_ff @(posedge clk) begin
    if (inverse) begin
      a1 <= half_mod(add_mod(x, y, q), q);
      b1 <= half_mod(sub_mod(y, x, q), q);
    end else begin
      a1 <= x;
      b1 <= y;
    end
    w1 <= w; q1 <= q; qi1 <= q_inv; inv1 <= inverse;
  end

  // M1: t = b w
  logic [2*W-1:0] t2;
  logic [W-1:0]   a2, q2, qi2;
  logic           inv2;
  always_ff @(posedge clk) begin
    t2 <= {{W{1'b0}}, b1} * {{W{1'b0}}, w1};
    a2 <= a1; q2 <= q1; qi2 <= qi1; inv2 <= inv1;
  end

  // M2: m = (t mod R) q' mod R
  logic [2*W-1:0] t3;
  logic [W-1:0]   m3, a3, q3;
  logic           inv3;
  always_ff @(posedge clk) begin
    m3 <= t2[W-1:0] * qi2;
    t3 <= t2; a3 <= a2; q3 <= q2; inv3 <= inv2;
  end

  // M3: u = (t + m q) / R, below 2q
  logic [2*W:0] mq3;
  logic [W:0]   u4;
  logic [W-1:0] a4, q4;
  logic         inv4;
  logic [W-1:0] mq3_low_unused;  // zero by construction of m
  always_comb mq3 = {1'b0, t3} + {1'b0, {W{1'b0}}, m3} * {1'b0, {W{1'b0}}, q3};
  assign mq3_low_unused = mq3[W-1:0];
  always_ff @(posedge clk) begin
    u4 <= mq3[2*W:W];
    a4 <= a3; q4 <= q3; inv4 <= inv3;
  end

  // M4: final subtraction
  logic [W-1:0] v5, a5, q5;
  logic         inv5;
  always_ff @(posedge clk) begin
    v5 <= (u4 >= {1'b0, q4}) ? W'(u4 - {1'b0, q4}) : u4[W-1:0];
    a5 <= a4; q5 <= q4; inv5 <= inv4;
  end

  // S2
  logic [W-1:0] xo, yo;
  always_ff @(posedge clk) begin
    if (inv5) begin
      xo <= a5;
      yo <= v5;
    end else begin
      xo <= add_mod(a5, v5, q5);
      yo <= sub_mod(a5, v5, q5);
    end
  end

  // Extra delay (the configured pipeline depth; retimed into the multiplier by synthesis).
  if (EXTRA == 0) begin : g_no_delay
    assign x_out = xo;
    assign y_out = yo;
  end else begin : g_delay
    logic [W-1:0] xd [EXTRA];
    logic [W-1:0] yd [EXTRA];
    always_ff @(posedge clk) begin
      xd[0] <= xo;
      yd[0] <= yo;
      for (int i = 1; i < int'(EXTRA); i++) begin
        xd[i] <= xd[i-1];
        yd[i] <= yd[i-1];
      end
    end
    assign x_out = xd[EXTRA-1];
    assign y_out = yd[EXTRA-1];
  end
endmodule
