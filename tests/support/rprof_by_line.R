# Prints summaryRprof(lines = "show")$by.line of each Rprof file given, for tests/lines_fidelity.rs.
#
# Usage: Rscript rprof_by_line.R FILE...
# Output (tab-separated): `FILE <path> <sample.interval>` (or `FILE <path> ERROR <message>`),
# then one `ROW <file#line> <self.time> <total.time>` per by.line row (seconds, rounded by
# summaryRprof to 2 decimals; file names are base names, summaryRprof's default).
for (path in commandArgs(trailingOnly = TRUE)) {
  s <- tryCatch(suppressWarnings(summaryRprof(path, lines = "show")),
                error = function(e) structure(conditionMessage(e), class = "failed"))
  if (inherits(s, "failed")) {
    cat("FILE\t", path, "\tERROR\t", gsub("[\t\n]", " ", unclass(s)), "\n", sep = "")
    next
  }
  cat("FILE\t", path, "\t", s$sample.interval, "\n", sep = "")
  b <- s$by.line
  for (i in seq_len(nrow(b))) {
    cat("ROW\t", rownames(b)[i], "\t", format(b$self.time[i], digits = 15), "\t",
        format(b$total.time[i], digits = 15), "\n", sep = "")
  }
}
