"""Unit tests of chainer_compat.dataset.download: failures leave no partial cache file, and
our message when the dataset root cannot be created."""

from __future__ import annotations

import os
import sys
import types

import pytest

from chainer_compat.dataset import download


@pytest.fixture
def dataset_root(tmp_path):
    previous = download.get_dataset_root()
    root = str(tmp_path / "root")
    download.set_dataset_root(root)
    yield root
    download.set_dataset_root(previous)


def test_failed_download_raises_os_error_and_leaves_no_cache_file(dataset_root, tmp_path):
    url = (tmp_path / "missing.bin").as_uri()
    with pytest.raises(OSError):
        download.cached_download(url)
    cache_root = os.path.join(dataset_root, "_dl_cache")
    assert os.listdir(cache_root) == []


def test_distinct_urls_get_distinct_cache_files(dataset_root, tmp_path):
    paths = []
    for name in ("a", "b"):
        source = tmp_path / name
        source.write_text(name)
        paths.append(download.cached_download(source.as_uri()))
    assert paths[0] != paths[1]
    assert [open(path).read() for path in paths] == ["a", "b"]


def test_cache_or_load_file_reports_an_uncreatable_root(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    previous = download.get_dataset_root()
    download.set_dataset_root(str(blocker / "root"))
    try:
        with pytest.raises(RuntimeError, match="cannot create dataset directory"):
            download.cache_or_load_file(str(tmp_path / "x"), lambda path: None,
                                        lambda path: None)
    finally:
        download.set_dataset_root(previous)


def test_cache_or_load_file_keeps_an_existing_file_written_meanwhile(dataset_root, tmp_path):
    os.makedirs(dataset_root)
    target = os.path.join(dataset_root, "data.txt")

    def creator(temporary_path):
        with open(temporary_path, "w") as stream:
            stream.write("mine")
        with open(target, "w") as stream:  # another process finished first
            stream.write("theirs")
        return "mine"

    assert download.cache_or_load_file(target, creator, lambda path: "loaded") == "mine"
    assert open(target).read() == "theirs"
    assert sorted(os.listdir(dataset_root)) == ["data.txt"]


def test_dataset_directory_nests_names_with_slashes(dataset_root):
    path = download.get_dataset_directory("a/b/c")
    assert os.path.isdir(os.path.join(dataset_root, "a", "b", "c"))
    assert path.endswith(os.path.join("a", "b", "c"))


def _fake_six(retrieve):
    """A stand-in for six whose ``moves.urllib.request`` holds its own ``urlretrieve``."""
    request = types.SimpleNamespace(urlretrieve=retrieve)
    return types.SimpleNamespace(moves=types.SimpleNamespace(
        urllib=types.SimpleNamespace(request=request)))


def test_downloads_through_six_where_a_test_patched_it(dataset_root, monkeypatch):
    # Chainer downloads through six.moves.urllib.request.urlretrieve, so legacy tests patch
    # that name; the patched function must be the one called, with (url, path) only.
    calls = []

    def retrieve(url, path):
        calls.append(url)
        with open(path, "w") as stream:
            stream.write("patched")

    monkeypatch.setitem(sys.modules, "six", _fake_six(retrieve))
    path = download.cached_download("https://example.invalid/data")
    assert calls == ["https://example.invalid/data"]
    assert open(path).read() == "patched"


def test_downloads_through_urllib_without_six(dataset_root, tmp_path, monkeypatch):
    monkeypatch.delitem(sys.modules, "six", raising=False)
    source = tmp_path / "file.txt"
    source.write_text("plain")
    assert open(download.cached_download(source.as_uri())).read() == "plain"
