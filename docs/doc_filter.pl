#!/usr/bin/perl
# Doxygen's input filter for the kernel and header files (Doxyfile.in, FILTER_PATTERNS): in a
# documentation comment, an option written as --name outside `code` becomes \--name, which Doxygen
# prints as two hyphens. Without it Doxygen's Markdown turns "--help" into an en dash and "help", and
# a command copied from the page fails. The code itself is not changed (nor are the source pages:
# FILTER_SOURCE_FILES is off).
sub options { my ($text) = @_; $text =~ s{(`[^`]*`)|(?<![-\\\w])--(?=[A-Za-z])}{defined $1 ? $1 : "\\--"}ge; return $text; }
while (<>) {
  if (m{^\s*(?:///|//!|/\*\*|\*)}) {            # a line of a documentation comment
    $_ = options($_);
  } elsif (m{^(.*?)((?:///|//!)<?.*)$}s) {      # code, then a documentation comment (///<)
    $_ = $1 . options($2);
  }
  print;
}
