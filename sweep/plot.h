// Plots, drawn by the project's script sweep/plot/photon_plot.py with Debian's python3-matplotlib
// (/usr/bin/python3). The numbers it draws are computed here (Pareto tables in the database,
// roofline points and ceilings in sweep/roofline.h); the script only draws.
#pragma once

#include <string>

namespace photon::sweep {

/// `photon sweep plot DIR`: Pareto fronts (latency vs energy, latency vs area), one-parameter
/// sensitivity curves and per-unit utilisation of the Pareto points, as PNG and SVG in `out`
/// (default DIR/plots). Returns 0; throws Error when the script or matplotlib is missing or fails.
int plot_sweep(const std::string& dir, const std::string& out);

/// `photon plot roofline REPORT.json`: PREFIX.png and PREFIX.svg (default prefix: the report's
/// path without .json, + "_roofline"). Returns 0; throws Error like plot_sweep.
int plot_roofline(const std::string& report, const std::string& prefix);

/// The plotting script: $PHOTON_PLOT_SCRIPT, else the one in the source tree this photon was
/// built from.
std::string plot_script();

}  // namespace photon::sweep
