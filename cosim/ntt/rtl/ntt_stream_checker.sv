// ntt_stream_checker: checks the valid/ready rules of one stream (AXI4-Stream, ARM IHI 0051A
// section 2.2.1): once valid is high without ready, valid must stay high and the payload must not
// change until the beat is taken. `violation` is high in the cycle after a broken rule (the first
// cycle it can be seen), so a monitor can latch the first one with the time it happened.
module ntt_stream_checker #(
  parameter int unsigned DATA_W = 64
) (
  input  logic              clk,
  input  logic              rst_n,
  input  logic              valid,
  input  logic              ready,
  input  logic [DATA_W-1:0] data,
  output logic              violation
);
  logic              held;    // last cycle: valid && !ready
  logic [DATA_W-1:0] held_data;
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) held <= 1'b0;
    else held <= valid && !ready;
  end
  always_ff @(posedge clk) held_data <= data;
  assign violation = held && (!valid || data != held_data);
endmodule
