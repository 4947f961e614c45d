package pkg

// MISSING.md, issue 9: skipped, it is under testdata.
