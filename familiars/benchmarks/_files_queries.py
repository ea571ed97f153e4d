"""The ``bench files`` queries: what a person might type, and the file(s) that answer it.

Targets are paths relative to the corpus root built by ``_files_corpus``; a query counts as
a hit when any of its targets is returned. Written by hand before tuning; the mix covers
remembered names, remembered places (folders), file types ("the PDF"), and content only.
"""

from __future__ import annotations

QUERIES: tuple[tuple[str, tuple[str, ...]], ...] = (
    # file types named in the query
    ("the bzip2 manual PDF", ("doc/bzip2/manual.pdf",)),
    ("valgrind user manual pdf", ("doc/valgrind/valgrind_manual.pdf",)),
    ("documentation of the nettle crypto library as a pdf", ("doc/nettle-dev/nettle.pdf",)),
    ("fontconfig user guide", ("doc/fontconfig/fontconfig-user.pdf",)),
    ("the shared MIME-info database specification",
     ("doc/shared-mime-info/shared-mime-info-spec.pdf",)),
    ("ASN.1 DER encoding library manual", ("doc/libtasn1-doc/libtasn1.pdf",)),
    ("paper about computing CRC checksums pdf", ("doc/zlib1g-dev/crc-doc.1.0.pdf",)),
    ("the apt readme word document", ("doc/apt/apt-readme.docx",)),
    ("iso codes readme as a word file", ("doc/iso-codes/iso-codes-readme.docx",)),
    ("libffi readme docx", ("doc/libffi8/libffi8-readme.docx",)),
    ("the pcg64 random test set csv file",
     ("data/pcg64-testset-1.csv", "data/pcg64-testset-2.csv")),
    ("mt19937 test data spreadsheet", ("data/mt19937-testset-1.csv", "data/mt19937-testset-2.csv")),
    # man pages: commands and file formats, mostly described rather than named
    ("how do I copy files and directories", ("man/man1/cp.1",)),
    ("download files from the web non-interactively", ("man/man1/wget.1",)),
    ("print lines that match a regular expression pattern", ("man/man1/grep.1",)),
    ("stream editor for filtering and transforming text", ("man/man1/sed.1",)),
    ("static information about the filesystems to mount at boot", ("man/man5/fstab.5",)),
    ("add a user to the system", ("man/man8/adduser.8",)),
    ("check and repair an ext4 filesystem", ("man/man8/e2fsck.8",)),
    ("apt-get command manual", ("man/man8/apt-get.8",)),
    ("locate and print block device attributes", ("man/man8/blkid.8",)),
    ("the password file format", ("man/man5/passwd.5",)),
    ("ssh client configuration file options", ("man/man5/ssh_config.5",)),
    ("send a signal to terminate a process", ("man/man1/kill.1",)),
    ("estimate disk space used by directories", ("man/man1/du.1",)),
    ("the tar archiving utility manual", ("man/man1/tar.1",)),
    ("which DNS name servers the resolver uses", ("man/man5/resolv.conf.5",)),
    ("systemd timer units for scheduled jobs", ("man/man5/systemd.timer.5",)),
    ("patterns of files git should ignore", ("man/man5/gitignore.5",)),
    ("apt sources list format for package repositories", ("man/man5/sources.list.5",)),
    # Python sources: what the module does, not its name
    ("parse command line arguments and options", ("python/argparse.py",)),
    ("compute differences between sequences of lines", ("python/difflib.py",)),
    ("split a shell command line respecting quotes", ("python/shlex.py",)),
    ("the json decoder source", ("python/json/decoder.py",)),
    ("asyncio subprocess support", ("python/asyncio/subprocess.py",)),
    ("send email through an SMTP server", ("python/smtplib.py",)),
    ("parse URLs into scheme, netloc and path", ("python/urllib/parse.py",)),
    ("heap queue priority algorithm", ("python/heapq.py",)),
    ("thread pool executor for concurrent futures", ("python/concurrent/futures/thread.py",)),
    ("read and write zip archives", ("python/zipfile.py",)),
    ("logging handlers that rotate log files", ("python/logging/handlers.py",)),
    ("rational numbers arithmetic", ("python/fractions.py",)),
    ("simple HTTP server request handler classes", ("python/http/server.py",)),
    ("pretty printer for nested data structures", ("python/pprint.py",)),
    ("print a calendar for a month or year", ("python/calendar.py",)),
    ("encode and decode MIME email headers", ("python/email/header.py",)),
    # documentation in /usr/share/doc: names, places and contents
    ("systemd coding style guide", ("doc/systemd/CODING_STYLE.md",)),
    ("how pip caches downloaded packages", ("doc/python3-pip/html/topics/caching.md",)),
    ("pip and https certificates", ("doc/python3-pip/html/topics/https-certificates.md",)),
    ("the licence of curl", ("doc/curl/copyright",)),
    ("how to contribute to zstd", ("doc/zstd/CONTRIBUTING.md",)),
    ("git 2.39 release notes", ("doc/git/RelNotes/2.39.0.txt",)),
    ("how to report bugs in procps", ("doc/procps/bugs.md",)),
    ("environment variables systemd understands", ("doc/systemd/ENVIRONMENT.md",)),
    ("uid and gid ranges on systemd systems", ("doc/systemd/UIDS-GIDS.md",)),
    ("openssl howto on creating certificates", ("doc/openssl/HOWTO/certificates.txt",)),
    ("what is new in man-db", ("doc/man-db/NEWS.md",)),
    ("copyright of the dejavu fonts", ("doc/fonts-dejavu-core/copyright",)),
    ("restricted bash shell", ("doc/bash/RBASH",)),
    ("bash readme for debian", ("doc/bash/README.Debian",)),
)  # fmt: skip
