# Memory freed per source line as profvis computes it, the judge of Rprof's `memory_freed`
# (tests/rprof_profvis.rs).
#
# profvis::parse_rprof() gives one row per frame with `meminc`, the change in vector memory
# (MiB) since the previous row: non-zero only on a sample's first row. profvis.js sums, for each
# flame-graph node, min(meminc, 0) over the samples beneath it, and a line's "memory
# deallocated" over the nodes at that line (getFileLineStats), so a line twice in one stack
# counts twice for memory (but once for time). Both sums are printed, in bytes:
#
#   PROFVIS <version>
#   ROW <file>#<line> <freed, per frame as profvis sums it> <freed, once per sample>
#       <samples with the line more than once in their stack>
#
# or `NO-PROFVIS` when the package is missing. Usage: Rscript profvis_freed_by_line.R FILE
# (source files beside FILE, where profvis looks for them).
args <- commandArgs(trailingOnly = TRUE)
if (!requireNamespace("profvis", quietly = TRUE)) {
  cat("NO-PROFVIS\n")
  quit(status = 0)
}
cat("PROFVIS", as.character(packageVersion("profvis")), "\n")
setwd(dirname(args[1]))
prof <- profvis::parse_rprof(basename(args[1]))$prof
freed_mib <- tapply(-pmin(prof$meminc, 0), prof$time, sum)
rows <- prof[!is.na(prof$filename) & prof$filename != "", ]
rows$freed <- freed_mib[as.character(rows$time)] * 1024^2
key <- paste0(rows$filename, "#", rows$linenum)
per_frame <- tapply(rows$freed, key, sum)
first <- !duplicated(paste(key, rows$time))
per_sample <- tapply(rows$freed[first], key[first], sum)
repeated <- tapply(paste(key, rows$time)[!first], key[!first], function(x) length(unique(x)))
for (k in names(per_frame)) {
  r <- if (k %in% names(repeated)) repeated[[k]] else 0
  cat("ROW", k, format(per_frame[[k]], digits = 17), format(per_sample[[k]], digits = 17), r,
      sep = "\t")
  cat("\n")
}
