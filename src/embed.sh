#!/bin/sh
# embed.sh NAME FILE: print FILE as the C string constant NAME, and its
# path (as given) as NAME_path, so the binary carries a default spec.
name=$1
file=$2
printf '/* generated from %s by embed.sh; do not edit */\n' "$file"
printf 'const char %s_path[] = "%s";\n' "$name" "$file"
printf 'const char %s[] =\n' "$name"
sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$/\\n"/' "$file"
printf ';\n'
