# Judges proftab's Rprof round trip with R's own summaryRprof().
#
# Usage: Rscript rprof_compare.R manifest.tsv
# Manifest (tab-separated, no header): id, original, roundtrip, repair (0/1), table, checks
#   original  an Rprof file;  roundtrip  proftab's rewrite of it;
#   repair    1 = compare against the original with the damage proftab reports removed
#             (a last line without line end is dropped; a line cut inside its last token
#             loses that token -- a cut name also the `F#L` before it, which belonged to the
#             lost frame -- and the whole line if no complete frame is left);
#   table     a function table to judge (proftab's, or go tool pprof's): name, self samples,
#             total samples, total memory_increase bytes (NA without memory), tab-separated,
#             no header; an optional first line `#total<TAB>N` gives the number of samples,
#             which must match summaryRprof's sampling.time / sample.interval;
#   checks    `all` (summaries of original and round trip, and the table) or `table`.
# Output, one line per check: RESULT <id> <check> OK|DIFF|BOTH-ERROR <details>

args <- commandArgs(trailingOnly = TRUE)
manifest <- read.delim(args[1], header = FALSE, colClasses = "character", quote = "",
                       col.names = c("id", "original", "roundtrip", "repair", "table", "checks"))

repaired_copy <- function(path) {
  size <- file.size(path)
  bytes <- readBin(path, "raw", size)
  lines <- readLines(path, warn = FALSE)
  if (size > 0 && bytes[size] != as.raw(10)) lines <- lines[-length(lines)]
  body <- seq_along(lines) > 1 & !startsWith(lines, "#File ")
  cut_name <- body & (lengths(regmatches(lines, gregexpr('"', lines))) %% 2 == 1)
  # The cut name and the source reference before it (which belonged to the lost frame).
  lines[cut_name] <- sub('([0-9]+#[0-9]+ )?"[^"]*$', "", lines[cut_name])
  cut_ref <- body & grepl("(^|[ :])[0-9]+#?$", lines)
  lines[cut_ref] <- sub("[0-9]+#?$", "", lines[cut_ref])
  damaged <- cut_name | cut_ref
  lines <- lines[!(damaged & !grepl('"', lines))]
  out <- tempfile(fileext = ".out")
  writeLines(lines, out)
  out
}

summarize <- function(path, memory, lines) {
  tryCatch(suppressWarnings(summaryRprof(path, memory = memory, lines = lines)),
           error = function(e) structure(conditionMessage(e), class = "failed"))
}

report <- function(id, check, status, details = "") {
  cat("RESULT", id, check, status, gsub("\n", " | ", details), "\n")
}

compare_summaries <- function(id, original, roundtrip, memory, lines) {
  check <- paste0("summaryRprof(memory=", memory, ",lines=", lines, ")")
  a <- summarize(original, memory, lines)
  b <- summarize(roundtrip, memory, lines)
  if (inherits(a, "failed") || inherits(b, "failed")) {
    same <- inherits(a, "failed") && inherits(b, "failed") && identical(unclass(a), unclass(b))
    report(id, check, if (same) "BOTH-ERROR" else "DIFF",
           paste("original:", unclass(a), "roundtrip:", unclass(b)))
    return(invisible())
  }
  parts <- c("by.self", "by.total", "by.line", "sample.interval", "sampling.time")
  differ <- parts[!vapply(parts, function(p) identical(a[[p]], b[[p]]), logical(1))]
  if (length(differ)) {
    details <- vapply(differ, function(p) paste(p, ":", paste(all.equal(a[[p]], b[[p]]), collapse = "; ")), "")
    report(id, check, "DIFF", paste(details, collapse = " || "))
  } else {
    report(id, check, "OK", paste0(nrow(a$by.total), " functions, sampling.time ", a$sampling.time))
  }
}

# proftab's function table against summaryRprof()'s by.total: same names, self.time and
# total.time (counts times the interval, rounded as summaryRprof rounds) and mem.total.
# Names with white space (summaryRprof splits at spaces; a line break starts a new sample for
# R) and summaryRprof's "<no location>" row have no counterpart and are left out on both sides.
compare_table <- function(id, original, table, has_memory) {
  s <- summarize(original, if (has_memory) "both" else "none", "hide")
  if (inherits(s, "failed")) {
    s <- summarize(original, "none", "hide")
    has_memory <- FALSE
  }
  if (inherits(s, "failed")) return(report(id, "function-table", "BOTH-ERROR", unclass(s)))
  ours <- read.delim(table, header = FALSE, quote = "", colClasses = c("character", rep("numeric", 3)),
                     col.names = c("name", "self", "total", "mem"), na.strings = "NA",
                     comment.char = "")
  total_row <- ours$name == "#total"
  if (any(total_row) && !isTRUE(all.equal(ours$self[total_row] * s$sample.interval, s$sampling.time)))
    return(report(id, "function-table", "DIFF",
                  paste("total", ours$self[total_row], "samples, summaryRprof sampling.time", s$sampling.time)))
  ours <- ours[!total_row, ]
  ours <- ours[!grepl("[ \t\r\n]", ours$name), ]
  r <- s$by.total
  quoted <- grepl('^".*"$', rownames(r)) & nchar(rownames(r)) >= 2 & !grepl("[ \t\r\n]", rownames(r))
  r <- r[quoted, ]
  rnames <- sub('^"(.*)"$', "\\1", rownames(r))
  problems <- c(setdiff(rnames, ours$name), setdiff(ours$name, rnames))
  if (length(problems)) return(report(id, "function-table", "DIFF",
                                      paste("names only on one side:", paste(problems, collapse = ", "))))
  ours <- ours[match(rnames, ours$name), ]
  digits <- if (s$sample.interval < 0.01) 3L else 2L
  self <- round(ours$self * s$sample.interval, digits)
  total <- round(ours$total * s$sample.interval, digits)
  bad <- rnames[self != r$self.time | total != r$total.time]
  if (has_memory) bad <- c(bad, rnames[round(ours$mem / 1048576, 1) != r$mem.total])
  if (length(bad)) {
    report(id, "function-table", "DIFF", paste("values differ for:", paste(unique(bad), collapse = ", ")))
  } else {
    report(id, "function-table", "OK", paste(length(rnames), "functions"))
  }
}

for (i in seq_len(nrow(manifest))) {
  row <- manifest[i, ]
  original <- if (row$repair == "1") repaired_copy(row$original) else row$original
  first <- readLines(original, n = 1, warn = FALSE)
  has_memory <- startsWith(first, "memory")
  has_lines <- grepl("line profiling", first)
  variants <- list(c("none", "hide"))
  if (has_memory) variants <- c(variants, list(c("both", "hide")))
  if (has_lines) variants <- c(variants, list(c("none", "show"), c("none", "both")))
  if (has_memory && has_lines) variants <- c(variants, list(c("both", "show")))
  if (row$checks == "all")
    for (v in variants) compare_summaries(row$id, original, row$roundtrip, v[1], v[2])
  compare_table(row$id, original, row$table, has_memory)
}
