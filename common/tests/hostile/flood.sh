#!/bin/sh
: '
Hostile runner: floods its output (64 MiB) and then ends without an answer. The checker keeps the
first 16 KiB for the diagnosis and drops the rest.
EXPECT: The kernels printed \(the first 16384 bytes\)
PROPERTY: kogge_stone
'
head -c 67108864 /dev/zero | tr '\0' x
exit 0
