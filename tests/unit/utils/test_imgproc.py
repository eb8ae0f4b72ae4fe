"""Unit tests of chainer_compat.utils.imgproc.oversample: the ten crops of each image, in order,
against slices computed here."""

from __future__ import annotations

import numpy
import pytest

from chainer_compat.utils import imgproc


def _expected_crops(image, height, width):
    _, source_height, source_width = image.shape
    top = int(source_height / 2.0 - height / 2.0)
    left = int(source_width / 2.0 - width / 2.0)
    corners = [image[:, :height, :width], image[:, :height, source_width - width:],
               image[:, source_height - height:, :width],
               image[:, source_height - height:, source_width - width:],
               image[:, top:top + height, left:left + width]]
    return corners + [crop[:, :, ::-1] for crop in corners]


@pytest.mark.parametrize("image_shape, crop", [((3, 7, 9), (4, 5)), ((1, 5, 5), (5, 5)),
                                                ((2, 6, 8), (3, 3))])
def test_oversample_gives_corners_center_and_mirrors_per_image(xp, image_shape, crop):
    rng = numpy.random.default_rng(0)
    images = [xp.asarray(rng.standard_normal(image_shape).astype(numpy.float32))
              for _ in range(2)]
    crops = imgproc.oversample(images, crop)
    assert crops.shape == (20, image_shape[0], *crop)
    assert crops.dtype == numpy.float32
    expected = [c for image in images for c in _expected_crops(image, *crop)]
    for got, want in zip(crops, expected):
        xp.testing.assert_array_equal(got, want)


def test_oversample_accepts_a_4d_array_and_keeps_its_dtype():
    images = numpy.arange(2 * 1 * 4 * 4, dtype=numpy.uint8).reshape(2, 1, 4, 4)
    crops = imgproc.oversample(images, (2, 2))
    assert crops.dtype == numpy.uint8
    numpy.testing.assert_array_equal(crops[14], images[1][:, 1:3, 1:3])


def test_oversample_rejects_a_crop_larger_than_the_image():
    with pytest.raises(ValueError, match="crop_dims must fit in the images"):
        imgproc.oversample([numpy.zeros((3, 4, 4))], (5, 2))
