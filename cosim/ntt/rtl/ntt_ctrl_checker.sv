// ntt_ctrl_checker: checks the control interface and the stream-to-command rules of ntt_core:
//   START_BUSY   start while busy or done (a command is still in flight)
//   DONE_NO_CMD  done without an outstanding start
//   BUSY_DROP    busy fell without done
//   CFG_CHANGED  cfg_log_n, cfg_inverse or cfg_limbs changed while the command runs
//   BEAT_IDLE    in_valid or tw_valid with no command (neither busy nor start)
//   BAD_CONST    a limb's first tw beat carries an even modulus or tw_q_inv != -tw_q^-1 mod 2^WIDTH
// `violation` is high for one cycle with `code` naming the rule (codes in the order above, 4..9;
// the stream checkers use 1..3), in the cycle after the offending cycle.
module ntt_ctrl_checker #(
  parameter int unsigned LANES = 4,
  parameter int unsigned WIDTH = 64
) (
  input  logic             clk,
  input  logic             rst_n,
  input  logic             start,
  input  logic [4:0]       cfg_log_n,
  input  logic             cfg_inverse,
  input  logic [12:0]      cfg_limbs,
  input  logic             busy,
  input  logic             done,
  input  logic             error,
  input  logic             in_valid,
  input  logic             tw_valid,
  input  logic             tw_ready,
  input  logic [WIDTH-1:0] tw_q,
  input  logic [WIDTH-1:0] tw_q_inv,
  output logic             violation,
  output logic [3:0]       code
);
  localparam int unsigned LOG_LANES = $clog2(LANES);

  logic        outstanding;   // a start not yet answered by done
  logic        busy_q;
  logic [18:0] cfg_q;         // {log_n, inverse, limbs} latched at start
  logic [31:0] tw_beats;      // tw beats of the current limb so far
  logic [31:0] beats_per_limb;
  logic [3:0]  bad;

  // -q^-1 * q = -1 mod 2^WIDTH  <=>  q * q_inv + 1 = 0 mod 2^WIDTH
  logic [WIDTH-1:0] prod;
  always_comb prod = tw_q * tw_q_inv + WIDTH'(1);

  always_comb begin
    bad = 4'd0;
    if (start && (busy || done || outstanding)) bad = 4'd4;
    else if (done && !outstanding) bad = 4'd5;
    else if (busy_q && !busy && !done) bad = 4'd6;
    else if (busy && {cfg_log_n, cfg_inverse, cfg_limbs} != cfg_q) bad = 4'd7;
    else if ((in_valid || tw_valid) && !busy && !start && !outstanding) bad = 4'd8;
    else if (tw_valid && tw_ready && tw_beats == 32'd0 && (!tw_q[0] || prod != '0)) bad = 4'd9;
  end

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      outstanding <= 1'b0;
      busy_q <= 1'b0;
      cfg_q <= '0;
      tw_beats <= '0;
      beats_per_limb <= 32'd1;
      violation <= 1'b0;
      code <= '0;
    end else begin
      busy_q <= busy;
      violation <= (bad != 4'd0);
      code <= bad;
      if (start && !busy && !outstanding) begin
        outstanding <= 1'b1;
        cfg_q <= {cfg_log_n, cfg_inverse, cfg_limbs};
        tw_beats <= '0;
        beats_per_limb <= (cfg_log_n > 5'(LOG_LANES)) ? 32'd1 << (cfg_log_n - 5'(LOG_LANES) - 5'd1) : 32'd1;
      end else if (done) begin
        outstanding <= 1'b0;
      end
      if (tw_valid && tw_ready)
        tw_beats <= (tw_beats + 32'd1 == beats_per_limb) ? 32'd0 : tw_beats + 32'd1;
    end
  end

  logic unused;
  assign unused = error;
endmodule
