# shellcheck shell=bash
# Sourced by Deploy/package.sh: manual pages made from what the program and the example configuration say,
# as help2man makes them from --help (help2man itself reads GNU-style help, not swift-argument-parser's).
#   help_manpage BINARY NAME DATE VERSION DETAILS [SUMMARY LEAD]
#       roff for NAME(1) from `BINARY --help`; with DETAILS non-empty, a COMMANDS section with
#       `BINARY SUB [SUBSUB] --help` of each; SUMMARY replaces the overview's first sentence in NAME, and LEAD
#       is a paragraph put first in DESCRIPTION
#   config_manpage EXAMPLE DATE VERSION               roff for contactbox.toml(5) from the example configuration
# Both write to standard output. The help is read through a pipe, so swift-argument-parser wraps it at 80
# columns whatever the terminal: the same page on every build.

# _help_to_roff LEVEL: swift-argument-parser's help on standard input, as roff. Level 1: the page's own sections
# (NAME's line is written by the caller); level 2: one command's subsection, inside COMMANDS.
_help_to_roff() {
    awk -v level="$1" '
        function esc(s) {
            gsub(/\\/, "\\e", s)
            gsub(/-/, "\\-", s)
            sub(/^[.\047]/, "\\\\\\&&", s)
            return s
        }
        function flush() {
            if (para == "") return
            # Level 1: the exit codes get a section of their own, at the end.
            if (level == 1 && para ~ /^Exit codes:/) {
                sub(/^Exit codes: */, "", para)
                exit_codes = para
            } else {
                print ".PP"
                print esc(para)
            }
            para = ""
        }
        function entry() {
            if (term == "") return
            print ".TP"
            print "\\fB" esc(term) "\\fR"
            print (desc == "" ? "" : esc(desc))
            term = ""; desc = ""
        }
        # A section header: OVERVIEW:, USAGE:, OPTIONS:, ARGUMENTS:, SUBCOMMANDS: ...
        /^[A-Z][A-Z ]*:/ {
            flush(); entry()
            if (open_list) { print ".RE"; open_list = 0 }
            section = $0; sub(/:.*/, "", section)
            rest = $0; sub(/^[A-Z][A-Z ]*: */, "", rest)
            if (section == "OVERVIEW") {
                if (level == 1) print ".SH DESCRIPTION"
                para = rest
            } else if (section == "USAGE") {
                # Level 1: the caller writes SYNOPSIS, where it belongs (after NAME).
                if (level == 2) { print ".PP"; print "Usage: \\fB" esc(rest) "\\fR" }
            } else {
                if (level == 1) print ".SH " section
                else {
                    print ".PP"; print "\\fI" substr(section, 1, 1) tolower(substr(section, 2)) ":\\fR"
                    print ".RS"
                    open_list = 1
                }
            }
            next
        }
        section == "OVERVIEW" {
            if ($0 == "") flush()
            else para = (para == "" ? $0 : para " " $0)
            next
        }
        section == "USAGE" { next }
        # In a list: "  term   description", continued on lines indented further.
        /^  See \047/ || /^$/ { entry(); next }
        /^  [^ ]/ {
            entry()
            line = substr($0, 3)
            if (match(line, /  +/)) {
                term = substr(line, 1, RSTART - 1); desc = substr(line, RSTART + RLENGTH)
            } else {
                term = line; desc = ""
            }
            next
        }
        /^   +[^ ]/ {
            text = $0; sub(/^ +/, "", text)
            desc = (desc == "" ? text : desc " " text)
            next
        }
        END {
            flush(); entry()
            if (open_list) print ".RE"
            if (exit_codes != "") { print ".SH \"EXIT STATUS\""; print esc(exit_codes) }
        }
    '
}

# _subcommands: the names in the SUBCOMMANDS list of a help text on standard input.
_subcommands() {
    awk '/^SUBCOMMANDS:/ { on = 1; next } /^[A-Z][A-Z ]*:/ { on = 0 } on && /^  [a-z]/ { print $1 }'
}

help_manpage() {
    local binary=$1 name=$2 date=$3 version=$4 details=${5:-} summary=${6:-} lead=${7:-} help
    help=$("$binary" --help)
    # NAME: the first sentence of the overview, without its full stop.
    [[ -n $summary ]] || summary=$(printf '%s\n' "$help" | awk '
        /^OVERVIEW:/ { sub(/^OVERVIEW: */, ""); on = 1 }
        on && /^$/ { exit }
        on { text = (text == "" ? $0 : text " " $0) }
        END { sub(/\.$/, "", text); print tolower(substr(text, 1, 1)) substr(text, 2) }')
    printf '.TH %s 1 "%s" "ContactBox %s" "User Commands"\n' "${name^^}" "$date" "$version"
    printf '.SH NAME\n%s \\- %s\n' "${name//-/\\-}" "${summary//-/\\-}"
    printf '.SH SYNOPSIS\n.B %s\n' "$(printf '%s\n' "$help" | sed -n 's/^USAGE: *//p' | sed 's/\\/\\e/g; s/-/\\-/g')"
    printf '%s\n' "$help" | _help_to_roff 1 | LEAD=$lead awk '
        { print }
        /^\.SH DESCRIPTION$/ && ENVIRON["LEAD"] != "" {
            lead = ENVIRON["LEAD"]; gsub(/\\/, "\\e", lead); gsub(/-/, "\\-", lead)
            print ".PP"; print lead
        }'
    if [[ -n $details ]]; then
        _commands_roff "$binary" "$name"
    fi
    cat <<'EOF'
.SH FILES
.TP
.I /etc/contactbox/contactbox.toml
The configuration (\fBcontactbox.toml\fR(5)).
.TP
.I /var/lib/contactbox/contacts.sqlite
The store; \fIsettings.toml\fR and \fIsecrets/\fR next to it hold what the status page sets.
.TP
.I /usr/share/contactbox/boards
The board files.
.SH "SEE ALSO"
EOF
    # The other pages, not this one.
    local page
    for page in contactbox:1 contactbox-remote:1 contactbox.toml:5 systemctl:1; do
        [[ ${page%:*} == "$name" ]] || printf '.BR %s (%s)\n' "${page%:*}" "${page#*:}"
    done | sed 's/-/\\-/g; $!s/$/,/'
}

# _commands_roff BINARY NAME: the COMMANDS section, each subcommand's (and its subcommands') --help.
_commands_roff() {
    local binary=$1 name=$2 help sub subsub
    help=$("$binary" --help)
    echo ".SH COMMANDS"
    while read -r sub; do
        [[ $sub == help ]] && continue
        printf '.SS "%s %s"\n' "$name" "$sub"
        "$binary" "$sub" --help | _help_to_roff 2
        while read -r subsub; do
            printf '.SS "%s %s %s"\n' "$name" "$sub" "$subsub"
            "$binary" "$sub" "$subsub" --help | _help_to_roff 2
        done < <("$binary" "$sub" --help | _subcommands)
    done < <(printf '%s\n' "$help" | _subcommands)
}

config_manpage() {
    local example=$1 date=$2 version=$3
    printf '.TH CONTACTBOX.TOML 5 "%s" "ContactBox %s" "File Formats"\n' "$date" "$version"
    printf '.SH NAME\ncontactbox.toml \\- the configuration of the ContactBox daemon and commands\n'
    printf '.SH SYNOPSIS\n/etc/contactbox/contactbox.toml\n'
    printf '.SH DESCRIPTION\n'
    # The example, table by table: its comments become the text, each key (set, or commented out as an
    # example) a tagged paragraph with the comments just above it.
    awk '
        function esc(s) {
            gsub(/\\/, "\\e", s)
            gsub(/-/, "\\-", s)
            sub(/^[.\047]/, "\\\\\\&&", s)
            return s
        }
        function flush_text(   i) {
            for (i = 1; i <= n; i++) {
                if (kind[i] == "code") {
                    if (!code) { print ".PP"; print ".nf"; print ".RS"; code = 1 }
                    print esc(text[i])
                } else {
                    if (code) { print ".RE"; print ".fi"; code = 0 }
                    if (i == 1 || kind[i - 1] == "code") print ".PP"
                    print esc(text[i])
                }
            }
            if (code) { print ".RE"; print ".fi"; code = 0 }
            n = 0
        }
        function key(line, commented,   value, note) {
            note = ""
            if (match(line, /  +# /)) { note = substr(line, RSTART + RLENGTH); line = substr(line, 1, RSTART - 1) }
            print ".TP"
            print "\\fB" esc(line) "\\fR" (commented ? " (commented out)" : "")
            sep = ""
            for (i = 1; i <= n; i++) { printf "%s%s", sep, esc(text[i]); sep = (kind[i] == "code" ? "\n.br\n" : "\n") }
            if (n) print ""
            if (note != "") print esc(note)
            n = 0
        }
        /^[[:space:]]*$/ { flush_text(); next }
        # A table header, set or commented out: [sync], # [box], #[[remote]]
        /^#? ?\[\[?[a-z]+\]\]?[[:space:]]*$/ {
            flush_text()
            header = $0; sub(/^# ?/, "", header)
            print ".SS \"" header "\""
            next
        }
        # A key, set or commented out.
        /^#? ?[a-z_]+ *= / {
            commented = ($0 ~ /^#/)
            line = $0; sub(/^# ?/, "", line)
            key(line, commented)
            next
        }
        /^#/ {
            line = $0
            if (line ~ /^#   /) { sub(/^# +/, "", line); n++; text[n] = line; kind[n] = "code"; next }
            sub(/^# ?/, "", line)
            n++; text[n] = line; kind[n] = "text"
            next
        }
        END { flush_text() }
    ' "$example"
    cat <<'EOF'
.SH FILES
.TP
.I /etc/contactbox/contactbox.toml
This file: read by the daemon at start and on \fBsystemctl reload contactbox\fR (SIGHUP), and by every command.
.TP
.I /var/lib/contactbox/settings.toml
The settings the status page writes (remotes, the box's name), next to the store.
.TP
.I /usr/share/contactbox/boards
The board files \fB[panel] board\fR names.
.SH "SEE ALSO"
.BR contactbox (1),
.BR contactbox\-remote (1)
EOF
}
