# The README's R example without the profiling and the server: writes SITE/index.html, a page
# made with htmltools that shows PROFILE (copied into SITE) in a <proftab-viewer>, next to a
# copy of the viewer's files (DIST). Usage: Rscript htmltools-page.R DIST PROFILE SITE
library(htmltools)
args <- commandArgs(trailingOnly = TRUE)
dist <- args[1]
profile <- args[2]
site <- args[3]
dir.create(site, showWarnings = FALSE)
stopifnot(all(file.copy(list.files(dist, full.names = TRUE), site, recursive = TRUE)))
stopifnot(file.copy(profile, file.path(site, "Rprof.out")))
save_html(tagList(
  tags$script(type = "module", src = "element.js"),
  tag("proftab-viewer", list(id = "r", src = "Rprof.out", style = "display:block;height:90vh"))
), file.path(site, "index.html"))
