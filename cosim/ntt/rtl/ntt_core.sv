// ntt_core: an iterative, constant-geometry radix-2 NTT engine for RNS polynomials.
//
// One command transforms `limbs` residue polynomials of N = 2^log_n coefficients, each with its
// own modulus (an RNS limb), forward (negacyclic NTT, Cooley-Tukey butterflies) or inverse
// (Gentleman-Sande, 1/N scale included). Results equal models/ntt/ntt_core.h NttTables:
// forward takes coefficient order and produces the bit-reversed evaluation order
// A[brev(i)] = a(psi^(2i+1)); inverse takes that order back to coefficients.
//
// Datapath: LANES butterflies (ntt_butterfly) per cycle, one "row" of LANES butterflies issued per
// cycle. Constant geometry (M. C. Pease, "An adaptation of the fast Fourier transform for parallel
// processing", JACM 1968): every forward stage reads positions k and k + N/2 and writes 2k, 2k+1;
// every inverse stage reads 2k, 2k+1 and writes k, k + N/2; after log2 N stages the data is in
// the in-place order of the textbook transform. Forward stage s, butterfly k uses twiddle
// W[2^s + (k mod 2^s)]; inverse stage r uses W[2h - 1 - (k mod h)], h = N / 2^(r+1), with
// W[j] = psi^brev(j) (Longa and Naehrig, CANS 2016) in Montgomery form.
//
// Memory: per interleaved limb (GROUP of them) two ping-pong buffers of N_max words, each four
// 1R1W banks (lower/upper half x even/odd row) of LANES-word rows, so both reads and both writes
// of a row go to different banks in either direction: no bank conflicts. Twiddles: 2 GROUP tables
// of N_max words (two 1R1W banks of even/odd rows), loaded from the tw stream while earlier limbs
// compute; a table slot is refilled once its limb has issued its last stage.
//
// Schedule: the GROUP limbs of a group run stage by stage (stage s of limb 0, 1, ..., then stage
// s+1), which hides the butterfly latency behind the other limbs' rows. A row of stage s+1 issues
// only when the rows of stage s it reads are written: an in-order write counter against the
// producer stage's first issue (conservatively, row c waits for producer row min(T-1, T/2 + c),
// T = N / (2 LANES) rows per stage), so any gap on a stream or a full output only delays. Stage 0
// reads the in stream directly, the last stage writes the out stream directly (through a FIFO of
// PIPE_DEPTH + 4 beats with credit-based issue, so back-pressure never freezes the pipeline).
// At full stream rates a command takes, in cycles from start to the observation of done,
//   PIPE_DEPTH + 3 + sum over groups of g limbs of  log2 N g T + (log2 N - 1) max(0, T/2 + PIPE_DEPTH - g T)
// (groups of GROUP limbs, the last one smaller): the formula of models/ntt/README.md.
//
// Streams (valid/ready, AXI4-Stream rules: valid and data hold until ready; ready never depends
// on valid). A beat is 2 LANES words of WIDTH bits, word w at bits [w WIDTH +: WIDTH]. For beat c
// (0 <= c < T) of a limb:
//   natural beat:    word w = coefficient 2 c LANES + w
//   split-half beat: word w < LANES = coefficient c LANES + w, word LANES + l = N/2 + c LANES + l
//   in:  forward split-half, inverse natural;   out: forward natural, inverse split-half.
//   tw:  T beats per limb; beat b = table rows {2 rho, 2 rho + 1} (low word first), rho = b
//        forward, T - 1 - b inverse, table row r = words W[r LANES .. r LANES + LANES - 1];
//        tw_q (the limb's odd modulus, below 2^WIDTH) and tw_q_inv = -q^-1 mod 2^WIDTH are read
//        with each limb's first beat.
// Limbs follow each other on every stream, limb 0 first.
//
// Control: start (one cycle, while !busy) latches cfg_log_n in [log2 LANES + 2, LOG_N_MAX],
// cfg_inverse and cfg_limbs in [1, 4096]. busy is high while the command runs; done is high for
// one cycle after the last out beat; error and err_code (1 log_n outside the core's range,
// 2 limbs outside [1, 4096], 3 even or below-3 modulus on a tw beat) hold until the next start.
// A command with an error ends at once (done with error) without consuming more beats.
module ntt_core #(
  parameter int unsigned LANES      = 4,   // butterflies per cycle, a power of two >= 2
  parameter int unsigned WIDTH      = 64,  // modulus and coefficient width, bits (16..64)
  parameter int unsigned LOG_N_MAX  = 16,  // largest log2 N the memories hold
  parameter int unsigned PIPE_DEPTH = 12,  // cycles from a row's issue until it can be read back (>= 8)
  parameter int unsigned GROUP      = 2    // limbs interleaved stage by stage (>= 1)
) (
  input  logic                     clk,
  input  logic                     rst_n,
  // control and status
  input  logic                     start,
  input  logic [4:0]               cfg_log_n,
  input  logic                     cfg_inverse,
  input  logic [12:0]              cfg_limbs,
  output logic                     busy,
  output logic                     done,
  output logic                     error,
  output logic [3:0]               err_code,
  // coefficients in
  input  logic                     in_valid,
  output logic                     in_ready,
  input  logic [2*LANES*WIDTH-1:0] in_data,
  // twiddles and moduli
  input  logic                     tw_valid,
  output logic                     tw_ready,
  input  logic [2*LANES*WIDTH-1:0] tw_data,
  input  logic [WIDTH-1:0]         tw_q,
  input  logic [WIDTH-1:0]         tw_q_inv,
  // coefficients out
  output logic                     out_valid,
  input  logic                     out_ready,
  output logic [2*LANES*WIDTH-1:0] out_data
);
  localparam int unsigned LOG_LANES = $clog2(LANES);
  localparam int unsigned LOG_N_MIN = LOG_LANES + 2;
  localparam int unsigned MAXT      = 1 << (LOG_N_MAX - 1 - LOG_LANES);  // rows per stage at N_max
  localparam int unsigned CW        = $clog2(MAXT);                      // row index bits
  localparam int unsigned RW        = LANES * WIDTH;                     // bits per row
  localparam int unsigned BW        = 2 * RW;                            // bits per beat
  localparam int unsigned SW        = (GROUP > 1) ? $clog2(GROUP) : 1;   // limb slot bits
  localparam int unsigned TSLOTS    = 2 * GROUP;                         // twiddle tables
  localparam int unsigned TSW       = $clog2(TSLOTS);
  localparam int unsigned NBANKS    = 8 * GROUP;                         // data banks
  localparam int unsigned BKW       = $clog2(NBANKS);
  localparam int unsigned DDEPTH    = MAXT / 2;                          // data bank depth
  localparam int unsigned DAW       = $clog2(DDEPTH);
  localparam int unsigned EXTRA     = PIPE_DEPTH - 8;
  localparam int unsigned BF_LAT    = 6 + EXTRA;                         // butterfly latency
  localparam int unsigned META_LAT  = BF_LAT + 1;                        // issue to write-back
  localparam int unsigned FIFO_D    = PIPE_DEPTH + 4;
  localparam int unsigned FW        = $clog2(FIFO_D);
  localparam int unsigned FCW       = $clog2(FIFO_D + 1);

  if (LANES < 2 || (1 << LOG_LANES) != LANES) begin : g_bad_lanes
    $error("ntt_core: LANES must be a power of two >= 2");
  end
  if (WIDTH < 16 || WIDTH > 64) begin : g_bad_width
    $error("ntt_core: WIDTH must lie in [16, 64]");
  end
  if (LOG_N_MAX < LOG_N_MIN + 1 || LOG_N_MAX > 17) begin : g_bad_n
    $error("ntt_core: LOG_N_MAX must lie in [log2 LANES + 3, 17]");
  end
  if (PIPE_DEPTH < 8) begin : g_bad_pipe
    $error("ntt_core: PIPE_DEPTH must be >= 8");
  end
  if (GROUP < 1 || GROUP > 4) begin : g_bad_group
    $error("ntt_core: GROUP must lie in [1, 4]");
  end

  typedef enum logic [1:0] {S_IDLE, S_RUN, S_DONE} state_t;

  // ---------------------------------------------------------------------------------------------
  // Command registers
  state_t      state;
  logic [4:0]  log_n;
  logic        inv;
  logic [12:0] limbs;
  logic [CW:0] t_rows;  // T = N / (2 LANES)

  wire running = (state == S_RUN);
  assign busy = running;
  assign done = (state == S_DONE);

  // Issue position: group base limb, group size, stage, slot in group, row.
  logic [12:0]   grp_base;
  logic [2:0]    grp_size;
  logic [4:0]    stage;
  logic [SW-1:0] slot;
  logic [CW-1:0] row;
  logic          all_issued;
  logic [12:0]   fin_limbs;  // limbs whose last stage has fully issued

  // Sequence numbers for the read-after-write interlock.
  logic [31:0] iss_seq, wr_seq;
  logic [31:0] cur_base  [GROUP];
  logic [31:0] prev_base [GROUP];

  // Twiddle loader.
  logic [12:0]   ld_limb;
  logic [CW-1:0] ld_beat;
  logic [WIDTH-1:0] slot_q    [TSLOTS];
  logic [WIDTH-1:0] slot_qinv [TSLOTS];

  // Output FIFO and credits.
  logic [BW-1:0] fifo_mem [FIFO_D];
  logic [FW-1:0] fifo_wp, fifo_rp;
  logic [FCW-1:0] fifo_cnt, out_inflight;
  logic [31:0]   out_beats;

  // ---------------------------------------------------------------------------------------------
  // Issue decision (combinational)
  wire [12:0]   limb      = grp_base + 13'(slot);
  wire [TSW-1:0] tslot    = TSW'(limb % 13'(TSLOTS));
  wire          first_st  = (stage == 5'd0);
  wire          last_st   = (stage == log_n - 5'd1);
  wire [CW-1:0] t_half    = CW'(t_rows >> 1);
  wire [CW-1:0] t_mask    = CW'(t_rows - 1'b1);

  // Twiddle row for this issue: stage size 2^sl (sl = stage forward, log_n - 1 - stage inverse).
  wire [4:0] sl = inv ? (log_n - 5'd1 - stage) : stage;
  logic [CW:0] tw_row;
  always_comb begin
    logic [CW:0] m, off;
    m = '0;
    off = '0;
    if (sl < 5'(LOG_LANES)) begin
      tw_row = '0;
    end else begin
      m = (CW+1)'(1) << (sl - 5'(LOG_LANES));
      off = {1'b0, row} & (m - 1'b1);
      tw_row = m + (inv ? (m - 1'b1 - off) : off);
    end
  end
  // The tw beat holding that row, and whether it has arrived.
  wire [CW-1:0] tw_beat_need = inv ? CW'(t_mask - CW'(tw_row >> 1)) : CW'(tw_row >> 1);
  wire tw_ok = (ld_limb > limb) || (ld_limb == limb && ld_beat > tw_beat_need);

  // Read-after-write: producer row min(T-1, T/2 + row) of the previous stage must be written.
  wire [31:0] dep_base = (row == '0) ? cur_base[slot] : prev_base[slot];
  wire [CW:0] dep_lim  = {1'b0, t_half} + {1'b0, row};
  wire [CW:0] dep_off  = (dep_lim > {1'b0, t_mask}) ? {1'b0, t_mask} : dep_lim;
  wire dep_ok = first_st || (wr_seq > dep_base + 32'(dep_off));

  wire cred_ok = !last_st || ((fifo_cnt + out_inflight) < FCW'(FIFO_D));

  wire can_issue = running && !all_issued && tw_ok && dep_ok && cred_ok;
  assign in_ready = can_issue && first_st;
  wire issue = can_issue && (!first_st || in_valid);

  // Memory read addressing (see the header: forward reads rows c | c + T, inverse 2c | 2c + 1).
  wire rbuf = ~stage[0];  // stage s >= 1 reads the buffer stage s - 1 wrote (s - 1 even: 0)
  function automatic logic [BKW-1:0] bank(input logic [SW-1:0] j, input logic b, input logic h,
                                          input logic p);
    return BKW'({j, b, h, p});
  endfunction
  wire          inv_hi    = ({1'b0, row} >= {1'b0, t_half});
  wire [BKW-1:0] rd_bank_a = inv ? bank(slot, rbuf, inv_hi, 1'b0) : bank(slot, rbuf, 1'b0, row[0]);
  wire [BKW-1:0] rd_bank_b = inv ? bank(slot, rbuf, inv_hi, 1'b1) : bank(slot, rbuf, 1'b1, row[0]);
  wire [DAW-1:0] rd_addr   = inv ? DAW'(row & (t_half - 1'b1)) : DAW'(row >> 1);
  wire rd_en = issue && !first_st;

  // ---------------------------------------------------------------------------------------------
  // Operand stage (cycle after issue)
  logic          op_from_in;
  logic [BKW-1:0] op_bank_a, op_bank_b;
  logic [TSW-1:0] op_tslot;
  logic          op_tw_odd;
  logic [4:0]    op_sl;
  logic [WIDTH-1:0] op_q, op_qinv;
  logic [BW-1:0] in_q;
  always_ff @(posedge clk) begin
    op_from_in <= first_st;
    op_bank_a  <= rd_bank_a;
    op_bank_b  <= rd_bank_b;
    op_tslot   <= tslot;
    op_tw_odd  <= tw_row[0];
    op_sl      <= sl;
    op_q       <= slot_q[tslot];
    op_qinv    <= slot_qinv[tslot];
    if (in_valid && in_ready) in_q <= in_data;
  end

  // Data banks.
  logic [RW-1:0] bank_rd [NBANKS];
  logic          wb_en;
  logic [BKW-1:0] wb_bank_a, wb_bank_b;
  logic [DAW-1:0] wb_addr;
  logic [BW-1:0] v_vec;
  for (genvar b = 0; b < int'(NBANKS); b++) begin : g_bank
    wire we = wb_en && (wb_bank_a == BKW'(b) || wb_bank_b == BKW'(b));
    wire [RW-1:0] wd = (wb_bank_a == BKW'(b)) ? v_vec[RW-1:0] : v_vec[BW-1:RW];
    wire re = rd_en && (rd_bank_a == BKW'(b) || rd_bank_b == BKW'(b));
    ntt_sdp_ram #(.DATA_W(RW), .DEPTH(DDEPTH)) u_ram (
      .clk, .we, .waddr(wb_addr), .wdata(wd), .re, .raddr(rd_addr), .rdata(bank_rd[b]));
  end
  wire [BW-1:0] u_vec = op_from_in ? in_q : {bank_rd[op_bank_b], bank_rd[op_bank_a]};

  // Twiddle tables: bank index {slot, parity}.
  logic [RW-1:0] tw_rd [2*TSLOTS];
  wire tw_hs = tw_valid && tw_ready;
  wire [TSW-1:0] ld_slot = TSW'(ld_limb % 13'(TSLOTS));
  wire [CW-1:0]  ld_rho  = inv ? CW'(t_mask - ld_beat) : ld_beat;
  wire [TSW:0]   tw_rd_bank = {tslot, tw_row[0]};
  for (genvar b = 0; b < int'(2 * TSLOTS); b++) begin : g_tw
    wire we = tw_hs && (ld_slot == TSW'(b >> 1));
    wire re = issue && (tw_rd_bank == (TSW+1)'(b));
    ntt_sdp_ram #(.DATA_W(RW), .DEPTH(MAXT)) u_ram (
      .clk, .we, .waddr(ld_rho), .wdata(tw_data[(b % 2) * RW +: RW]), .re,
      .raddr(CW'(tw_row >> 1)), .rdata(tw_rd[b]));
  end
  wire [RW-1:0] tw_vec = tw_rd[{op_tslot, op_tw_odd}];

  // ---------------------------------------------------------------------------------------------
  // Lanes
  logic [BW-1:0] v_raw;
  for (genvar l = 0; l < int'(LANES); l++) begin : g_lane
    logic [WIDTH-1:0] x, y, w, xo, yo;
    always_comb begin
      x = inv ? u_vec[(2*l)*WIDTH +: WIDTH] : u_vec[l*WIDTH +: WIDTH];
      y = inv ? u_vec[(2*l+1)*WIDTH +: WIDTH] : u_vec[(LANES+l)*WIDTH +: WIDTH];
      w = inv ? tw_vec[(LANES-1-l)*WIDTH +: WIDTH] : tw_vec[l*WIDTH +: WIDTH];
      for (int k = 0; k < int'(LOG_LANES); k++)
        if (op_sl == 5'(k))
          w = inv ? tw_vec[((2 << k) - 1 - (l % (1 << k)))*WIDTH +: WIDTH]
                  : tw_vec[((1 << k) + (l % (1 << k)))*WIDTH +: WIDTH];
    end
    ntt_butterfly #(.WIDTH(WIDTH), .EXTRA(EXTRA)) u_bf (
      .clk, .inverse(inv), .x, .y, .w, .q(op_q), .q_inv(op_qinv), .x_out(xo), .y_out(yo));
    // forward: x' -> 2k, y' -> 2k+1 (natural order); inverse: x' -> k, y' -> k + N/2.
    always_comb begin
      if (inv) begin
        v_raw[l*WIDTH +: WIDTH]         = xo;
        v_raw[(LANES+l)*WIDTH +: WIDTH] = yo;
      end else begin
        v_raw[(2*l)*WIDTH +: WIDTH]     = xo;
        v_raw[(2*l+1)*WIDTH +: WIDTH]   = yo;
      end
    end
  end
  assign v_vec = v_raw;

  // Row metadata from issue to write-back.
  typedef struct packed {
    logic          valid;
    logic          last;
    logic [SW-1:0] slot;
    logic          wbuf;
    logic [CW-1:0] row;
  } meta_t;
  meta_t meta [META_LAT];
  meta_t wb;
  always_ff @(posedge clk) begin
    meta[0] <= '{valid: 1'b0, last: last_st, slot: slot, wbuf: stage[0], row: row};
    for (int i = 1; i < int'(META_LAT); i++) meta[i] <= '{valid: 1'b0, last: meta[i-1].last,
        slot: meta[i-1].slot, wbuf: meta[i-1].wbuf, row: meta[i-1].row};
  end
  // Valid bits of the rows in flight (reset; dropped when a command ends or aborts).
  logic [META_LAT-1:0] meta_valid;
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) meta_valid <= '0;
    else if (state != S_RUN) meta_valid <= '0;
    else meta_valid <= {meta_valid[META_LAT-2:0], issue};
  end
  always_comb begin
    wb = meta[META_LAT-1];
    wb.valid = meta_valid[META_LAT-1];
  end
  wire wb_hi = ({1'b0, wb.row} >= {1'b0, t_half});
  always_comb begin
    wb_en     = wb.valid && !wb.last;
    wb_bank_a = inv ? bank(wb.slot, wb.wbuf, 1'b0, wb.row[0]) : bank(wb.slot, wb.wbuf, wb_hi, 1'b0);
    wb_bank_b = inv ? bank(wb.slot, wb.wbuf, 1'b1, wb.row[0]) : bank(wb.slot, wb.wbuf, wb_hi, 1'b1);
    wb_addr   = inv ? DAW'(wb.row >> 1) : DAW'(wb.row & (t_half - 1'b1));
  end
  wire push = wb.valid && wb.last;
  wire pop  = out_valid && out_ready;

  assign out_valid = (fifo_cnt != '0);
  assign out_data  = fifo_mem[fifo_rp];
  always_ff @(posedge clk) if (push) fifo_mem[fifo_wp] <= v_vec;

  // ---------------------------------------------------------------------------------------------
  // Control
  wire [12:0] next_base = grp_base + 13'(grp_size);
  wire [12:0] left      = limbs - next_base;
  wire [2:0]  next_size = (left > 13'(GROUP)) ? 3'(GROUP) : left[2:0];
  wire row_end   = (row == t_mask);
  wire slot_end  = (3'(slot) == grp_size - 3'd1);
  wire stage_end = last_st;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state <= S_IDLE;
      error <= 1'b0;
      err_code <= '0;
      {log_n, inv, limbs, t_rows} <= '0;
      {grp_base, grp_size, stage, slot, row, all_issued, fin_limbs} <= '0;
      {iss_seq, wr_seq, ld_limb, ld_beat} <= '0;
      {fifo_wp, fifo_rp, fifo_cnt, out_inflight, out_beats} <= '0;
    end else begin
      case (state)
        S_IDLE: if (start) begin
          log_n <= cfg_log_n;
          inv <= cfg_inverse;
          limbs <= cfg_limbs;
          t_rows <= (CW+1)'(1) << (cfg_log_n - 5'(LOG_LANES) - 5'd1);
          grp_base <= '0;
          grp_size <= (cfg_limbs > 13'(GROUP)) ? 3'(GROUP) : cfg_limbs[2:0];
          {stage, slot, row, all_issued, fin_limbs} <= '0;
          {iss_seq, wr_seq, ld_limb, ld_beat} <= '0;
          {fifo_wp, fifo_rp, fifo_cnt, out_inflight, out_beats} <= '0;
          error <= 1'b0;
          err_code <= '0;
          if (cfg_log_n < 5'(LOG_N_MIN) || cfg_log_n > 5'(LOG_N_MAX)) begin
            error <= 1'b1; err_code <= 4'd1; state <= S_DONE;
          end else if (cfg_limbs == 13'd0 || cfg_limbs > 13'd4096) begin
            error <= 1'b1; err_code <= 4'd2; state <= S_DONE;
          end else begin
            state <= S_RUN;
          end
        end
        S_RUN: begin
          // Issue position.
          if (issue) begin
            iss_seq <= iss_seq + 32'd1;
            if (!row_end) begin
              row <= row + 1'b1;
            end else begin
              row <= '0;
              if (last_st) fin_limbs <= fin_limbs + 13'd1;
              if (!slot_end) begin
                slot <= slot + 1'b1;
              end else begin
                slot <= '0;
                if (!stage_end) begin
                  stage <= stage + 5'd1;
                end else begin
                  stage <= '0;
                  grp_base <= next_base;
                  grp_size <= next_size;
                  if (next_base == limbs) all_issued <= 1'b1;
                end
              end
            end
          end
          if (wb.valid) wr_seq <= wr_seq + 32'd1;
          // Twiddle loader.
          if (tw_hs) begin
            if (ld_beat == '0) begin
              if (!tw_q[0] || tw_q < WIDTH'(3)) begin
                error <= 1'b1; err_code <= 4'd3; state <= S_DONE;
              end
            end
            if (ld_beat == t_mask) begin
              ld_beat <= '0;
              ld_limb <= ld_limb + 13'd1;
            end else begin
              ld_beat <= ld_beat + 1'b1;
            end
          end
          // Output FIFO and credits.
          if (push) fifo_wp <= (fifo_wp == FW'(FIFO_D - 1)) ? '0 : fifo_wp + 1'b1;
          if (pop)  fifo_rp <= (fifo_rp == FW'(FIFO_D - 1)) ? '0 : fifo_rp + 1'b1;
          fifo_cnt <= fifo_cnt + FCW'(push) - FCW'(pop);
          out_inflight <= out_inflight + FCW'(issue && last_st) - FCW'(push);
          if (pop) begin
            out_beats <= out_beats + 32'd1;
            if (out_beats + 32'd1 == 32'(limbs) * 32'(t_rows)) state <= S_DONE;
          end
        end
        default: state <= S_IDLE;  // S_DONE: done is high for this one cycle
      endcase
    end
  end

  // Per-slot registers without reset (written before they are read in every command).
  always_ff @(posedge clk) begin
    if (issue && row == '0) begin
      prev_base[slot] <= cur_base[slot];
      cur_base[slot]  <= iss_seq;
    end
    if (tw_hs && ld_beat == '0) begin
      slot_q[ld_slot]    <= tw_q;
      slot_qinv[ld_slot] <= tw_q_inv;
    end
  end

  assign tw_ready = running && (ld_limb < limbs) && (ld_limb < fin_limbs + 13'(TSLOTS));
endmodule
