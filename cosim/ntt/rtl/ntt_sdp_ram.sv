// ntt_sdp_ram: simple dual-port RAM, one write port and one registered read port (1R1W), the
// SRAM macro every bank of ntt_core is built from. A read of the address written in the same
// cycle returns the old word (read-before-write), as a synchronous SRAM does.
//
// Parameters: DATA_W bits per word, DEPTH words (a power of two).
module ntt_sdp_ram #(
  parameter int unsigned DATA_W = 64,
  parameter int unsigned DEPTH  = 16
) (
  input  logic                     clk,
  input  logic                     we,
  input  logic [$clog2(DEPTH)-1:0] waddr,
  input  logic [DATA_W-1:0]        wdata,
  input  logic                     re,
  input  logic [$clog2(DEPTH)-1:0] raddr,
  output logic [DATA_W-1:0]        rdata
);
  logic [DATA_W-1:0] mem [DEPTH];

  always_ff @(posedge clk) begin
    if (re) rdata <= mem[raddr];
    if (we) mem[waddr] <= wdata;
  end
endmodule
