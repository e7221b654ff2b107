// ntt_cosim_top: what Photon verilates for co-simulation: ntt_core with protocol checkers on its
// three streams and its control interface. The checkers watch the pins only, so the same monitor
// serves any block with this interface (docs/cosim.md).
//
// chk_error/chk_code/chk_cycle hold the first violation since reset: code 1 in stream, 2 tw
// stream, 3 out stream (data changed or valid dropped while valid && !ready), 4..9 control rules
// (ntt_ctrl_checker); chk_cycle is the value of the free-running cycle counter `cycle` in the
// cycle the rule was broken.
module ntt_cosim_top #(
  parameter int unsigned LANES      = 4,
  parameter int unsigned WIDTH      = 64,
  parameter int unsigned LOG_N_MAX  = 16,
  parameter int unsigned PIPE_DEPTH = 12,
  parameter int unsigned GROUP      = 2
) (
  input  logic                     clk,
  input  logic                     rst_n,
  input  logic                     start,
  input  logic [4:0]               cfg_log_n,
  input  logic                     cfg_inverse,
  input  logic [12:0]              cfg_limbs,
  output logic                     busy,
  output logic                     done,
  output logic                     error,
  output logic [3:0]               err_code,
  input  logic                     in_valid,
  output logic                     in_ready,
  input  logic [2*LANES*WIDTH-1:0] in_data,
  input  logic                     tw_valid,
  output logic                     tw_ready,
  input  logic [2*LANES*WIDTH-1:0] tw_data,
  input  logic [WIDTH-1:0]         tw_q,
  input  logic [WIDTH-1:0]         tw_q_inv,
  output logic                     out_valid,
  input  logic                     out_ready,
  output logic [2*LANES*WIDTH-1:0] out_data,
  output logic [63:0]              cycle,
  output logic                     chk_error,
  output logic [3:0]               chk_code,
  output logic [63:0]              chk_cycle
);
  localparam int unsigned BW = 2 * LANES * WIDTH;

  ntt_core #(.LANES(LANES), .WIDTH(WIDTH), .LOG_N_MAX(LOG_N_MAX), .PIPE_DEPTH(PIPE_DEPTH),
             .GROUP(GROUP)) u_core (.*);

  logic in_bad, tw_bad, out_bad, ctrl_bad;
  logic [3:0] ctrl_code;
  ntt_stream_checker #(.DATA_W(BW)) u_chk_in (
    .clk, .rst_n, .valid(in_valid), .ready(in_ready), .data(in_data), .violation(in_bad));
  ntt_stream_checker #(.DATA_W(BW + 2 * WIDTH)) u_chk_tw (
    .clk, .rst_n, .valid(tw_valid), .ready(tw_ready), .data({tw_q_inv, tw_q, tw_data}),
    .violation(tw_bad));
  ntt_stream_checker #(.DATA_W(BW)) u_chk_out (
    .clk, .rst_n, .valid(out_valid), .ready(out_ready), .data(out_data), .violation(out_bad));
  ntt_ctrl_checker #(.LANES(LANES), .WIDTH(WIDTH)) u_chk_ctrl (
    .clk, .rst_n, .start, .cfg_log_n, .cfg_inverse, .cfg_limbs, .busy, .done, .error, .in_valid,
    .tw_valid, .tw_ready, .tw_q, .tw_q_inv, .violation(ctrl_bad), .code(ctrl_code));

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      cycle <= '0;
      chk_error <= 1'b0;
      chk_code <= '0;
      chk_cycle <= '0;
    end else begin
      cycle <= cycle + 64'd1;
      if (!chk_error && (in_bad || tw_bad || out_bad || ctrl_bad)) begin
        chk_error <= 1'b1;
        chk_code <= in_bad ? 4'd1 : tw_bad ? 4'd2 : out_bad ? 4'd3 : ctrl_code;
        chk_cycle <= cycle - 64'd1;
      end
    end
  end
endmodule
